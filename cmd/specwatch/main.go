// Command specwatch watches LLM speculative-decoding services and explains, in numbers, why
// decode throughput is what it is. This package is the only place that reads flags and config
// and wires the parts together; the libraries take options structs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// command is one subcommand: it parses its own flags from args and runs.
type command struct {
	name, usage string
	run         func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"run", "run [--config FILE] [--unit U]... [--journal-dir DIR] [--listen ADDR] ...: the daemon", runRun},
	{"analyze", "analyze [--format text|json|html] [--since T] [--until T] [FILE ... | -]: diagnose logs offline", runAnalyze},
	{"demo", "demo [--listen ADDR] [--speed X] [--once]: run the daemon on the embedded demo data (a simulated SGLang and vLLM service)", runDemo},
	{"simulate", "simulate [--preset P] [--seed N] [--format F] [--lines N]: write a simulated engine log", runSimulate},
	{"check-config", "check-config FILE: validate a config file", runCheckConfig},
	{"version", "version: print the version", runVersion},
}

// errUsage marks errors caused by how specwatch was called (exit status 2).
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdout, stderr)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			fmt.Fprintf(stderr, "specwatch %s: %v\n", c.name, err)
			return 2
		default:
			fmt.Fprintf(stderr, "specwatch %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "specwatch: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: specwatch COMMAND [FLAGS]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %s\n", c.usage)
	}
}

// parseInterspersed lets flags and operands come in any order ("analyze x.log --format json"),
// as operators type them, which the standard flag package alone does not allow.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var operands []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return operands, nil
		}
		operands = append(operands, args[0])
		args = args[1:]
	}
}
