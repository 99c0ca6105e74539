// Command specwatch watches LLM speculative-decoding services and explains, in numbers, why
// decode throughput is what it is. This package is the only place that reads flags and config
// and wires the parts together; the libraries take options structs.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"

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
		return 2
	}
	selected, err := app.Parse(stdinDash(joinNegative(args), valueFlags(app.Model())))
	if err != nil {
		fmt.Fprintf(stderr, "specwatch: %v (try --help)\n", err)
		return 2
	}
	if err := actions[selected](ctx, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "specwatch %s: %v\n", selected, err)
		if errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	return 0
}

// joinNegative writes "--since -2h" as "--since=-2h": kingpin reads a value that starts with a
// dash as the next flag ("expected argument for flag --since"), and relative times and
// out-of-range numbers ("--speed -1", refused with its reason) start with one. No flag of
// specwatch is a dash and a digit, so nothing else can be meant.
func joinNegative(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "--") && len(a) > 2 && !strings.Contains(a, "=") && i+1 < len(args) {
			if n := args[i+1]; len(n) > 1 && n[0] == '-' && n[1] >= '0' && n[1] <= '9' {
				out = append(out, a+"="+n)
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// stdinDash keeps a lone "-" (standard input, `analyze -`) an argument: kingpin's lexer hands
// it over as an empty string, which is also what `analyze ""` gives. When a positional
// argument is a lone "-", every positional argument after the command moves, in its order,
// behind a "--", after which kingpin takes each as it is; flags and their values keep their
// place, and arguments already after a "--" stay behind the moved ones. takesValue says which
// long flags of a command consume the next argument, so that the value of "--format json"
// is not taken for a file; a "-" given as a flag's value is left to the flag.
func stdinDash(args []string, takesValue func(cmd, flag string) bool) []string {
	var kept, positional, rest []string
	cmd, dash := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = args[i+1:]
			i = len(args)
		case strings.HasPrefix(a, "--"):
			kept = append(kept, a)
			if !strings.Contains(a, "=") && takesValue(cmd, a[2:]) && i+1 < len(args) {
				i++
				kept = append(kept, args[i])
			}
		case len(a) > 1 && a[0] == '-': // -h, or what kingpin refuses itself
			kept = append(kept, a)
		case cmd == "":
			cmd = a
			kept = append(kept, a)
		default:
			positional = append(positional, a)
			dash = dash || a == "-"
		}
	}
	if !dash {
		return args
	}
	out := append(kept, "--")
	out = append(out, positional...)
	return append(out, rest...)
}

// valueFlags answers stdinDash from the command line's model: whether long flag name of
// command cmd (or of the application, before the command) takes a value. Bool flags, their
// --no- forms and unknown names take none.
func valueFlags(m *kingpin.ApplicationModel) func(cmd, name string) bool {
	takes := map[[2]string]bool{}
	add := func(cmd string, flags []*kingpin.FlagModel) {
		for _, f := range flags {
			takes[[2]string{cmd, f.Name}] = !f.IsBoolFlag()
		}
	}
	add("", m.Flags)
	for _, c := range m.Commands {
		add(c.Name, m.Flags)
		add(c.Name, c.Flags)
	}
	return func(cmd, name string) bool { return takes[[2]string{cmd, name}] }
}
