// Command specwatch watches LLM speculative-decoding services and explains, in numbers, why
// decode throughput is what it is. This package is the only place that reads flags and config
// and wires the parts together; the libraries take options structs.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/specwatch/specwatch/internal/cliargs"
	"github.com/specwatch/specwatch/internal/cmdhelp"

	_ "github.com/specwatch/specwatch/internal/hupguard" // an early SIGHUP must not kill run
)

var commands = []command{
	{"run", "The daemon: follow the journal, files and /metrics of engines, serve /metrics, the report and the status page.", defineRun},
	{"analyze", "Diagnose logs offline: files, standard input or a journal directory, to a text, JSON or HTML report.", defineAnalyze},
	{"demo", "Run the daemon on the embedded demo data (a simulated SGLang and vLLM service), or print its report with --once.", defineDemo},
	{"simulate", "Write a simulated engine log with known ground truth.", defineSimulate},
	{"check-config", "Validate a configuration file as run and a reload would.", defineCheckConfig},
	{"version", "Print the version.", defineVersion},
}

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

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	// kingpin calls terminate where it would exit (after --help, --version, --help-man) and
	// then carries on parsing; unwinding to here stops it where it would have stopped.
	type terminated struct{ code int }
	defer func() {
		if r := recover(); r != nil {
			t, ok := r.(terminated)
			if !ok {
				panic(r)
			}
			code = t.code
		}
	}()
	app, actions := newApp(stdout, stderr, func(code int) { panic(terminated{code}) })
	if len(args) == 0 {
		app.Usage(nil)
		return exitUsage
	}
	model := app.Model()
	var selected string
	var err error
	if len(args) > 1 && args[0] == "help" && !strings.HasPrefix(args[1], "-") && cmdhelp.CommandOf(args[1:], model) == nil {
		// kingpin's help command fails on an unknown command name with exit status 1.
		err = fmt.Errorf("expected command but got %q", args[1])
	} else {
		selected, err = app.Parse(cliargs.StdinDash(cliargs.JoinNegative(args), cliargs.ValueFlags(model)))
	}
	if err != nil {
		msg := err.Error()
		if s := cmdhelp.Suggestion(msg, args, model); s != "" {
			msg += "; " + s
		}
		help := "specwatch --help"
		if c := cmdhelp.CommandOf(args, model); c != nil {
			help = "specwatch " + c.Name + " --help"
		}
		fmt.Fprintf(stderr, "specwatch: %s (try %s)\n", msg, help)
		return exitUsage
	}
	if err := actions[selected](ctx, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "specwatch %s: %v\n", selected, err)
		return exitCode(err)
	}
	return exitOK
}
