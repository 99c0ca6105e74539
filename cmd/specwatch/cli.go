package main

import (
	"context"
	"io"

	"github.com/alecthomas/kingpin/v2"
	"github.com/specwatch/specwatch/internal/buildinfo"
	"github.com/specwatch/specwatch/internal/cmdhelp"
)

// The command line is kingpin's, the parser node_exporter, Prometheus and Alertmanager use, so
// that specwatch reads like them: --web.listen-address, --log.level, --help on every command
// with the defaults shown, `help COMMAND`, --version, and a man page and shell completion
// generated from the same definitions (--help-man, --completion-script-bash, -zsh, -fish).

// action runs a command once its flags and arguments are parsed.
type action func(ctx context.Context, stdout, stderr io.Writer) error

// command is one subcommand: define declares its flags and arguments and returns its action.
type command struct {
	name, help string
	define     func(c *kingpin.CmdClause, stderr io.Writer) action
}

// The man page's sections around kingpin's, with the exit statuses of run.
func init() { kingpin.ManPageTemplate = cmdhelp.ManPage(exitStatus) }

// newApp builds the command line; terminate is called with an exit code where kingpin would
// exit (after --help, --version, --help-man).
func newApp(stdout, stderr io.Writer, terminate func(int)) (*kingpin.Application, map[string]action) {
	// kingpin reads the arguments of "@name" from the file name; analyze's arguments are log
	// files, and one called "@gpu07.log" must be read as a log, not as more flags.
	kingpin.EnableFileExpansion = false
	app := kingpin.New("specwatch", "Watches LLM speculative-decoding services (SGLang, vLLM, llama.cpp, TensorRT-LLM) and explains, in numbers, why decode throughput is what it is.")
	app.UsageWriter(stdout).ErrorWriter(stderr).Terminate(terminate)
	app.HelpFlag.Short('h')
	app.Version(buildinfo.Line())
	app.UsageFuncs(cmdhelp.Funcs)
	app.Flag("completion-script-fish", "Generate completion script for fish.").Hidden().PreAction(func(*kingpin.ParseContext) error {
		cmdhelp.WriteFish(stdout, app.Model())
		terminate(0)
		return nil
	}).Bool()
	actions := map[string]action{}
	for _, c := range commands {
		actions[c.name] = c.define(app.Command(c.name, c.help), stderr)
	}
	return app, actions
}
