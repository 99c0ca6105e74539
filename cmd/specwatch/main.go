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
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/specwatch/specwatch/internal/hupguard" // an early SIGHUP must not kill run
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
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var caught atomic.Int32 // the signal that ended the command, 0: none
	go func() {
		sig := (<-sigs).(syscall.Signal)
		caught.Store(int32(sig))
		cancel()
		// Every command stops on ctx; one blocked where ctx cannot reach (an open of a FIFO,
		// a read of an endless input) is ended after a grace: a signal always ends specwatch.
		time.AfterFunc(stopGrace(os.Args), func() {
			fmt.Fprintf(os.Stderr, "specwatch: %v: did not stop within %v; exiting\n", sig, stopGrace(os.Args))
			os.Exit(128 + int(sig))
		})
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if sig := caught.Load(); sig != 0 && !(len(os.Args) > 1 && os.Args[1] == "run" && code == 0) {
		// The shell's convention (130 for SIGINT, 143 for SIGTERM): the output is incomplete.
		// The daemon's graceful stop (run) exits 0, as systemd expects of a stop it asked for.
		code = 128 + int(sig)
	}
	os.Exit(code)
}

// stopGrace is how long a signalled command may take to stop by itself: the daemon's graceful
// stop includes the final push (bounded by its own timeout) and the HTTP shutdown; the other
// commands only stop reading.
func stopGrace(args []string) time.Duration {
	if len(args) > 1 && (args[1] == "run" || args[1] == "demo") {
		return 20 * time.Second
	}
	return time.Second
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
