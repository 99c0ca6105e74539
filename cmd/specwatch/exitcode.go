package main

import (
	"errors"

	"github.com/specwatch/specwatch/config"
)

// The exit statuses of every command: scripts and systemd tell outcomes apart by them. The
// table below is the one source for run's mapping, the man page and docs/cli.md.
const (
	exitOK           = 0 // success
	exitFailure      = 1 // a runtime error: an input, the port, the state directory, the config file
	exitUsage        = 2 // how specwatch was called: an unknown flag or command, a bad flag value
	exitNoEngineLine = 3 // analyze: no input line was an engine's statistics line
)

// exitStatus describes each code (code, meaning), as the man page's EXIT STATUS and
// docs/cli.md list them.
var exitStatus = [][2]string{
	{"0", "success; for run, also its graceful stop after SIGTERM or SIGINT"},
	{"1", "a runtime error: an input that cannot be read, a port in use, a state directory held by another specwatch, an invalid configuration file"},
	{"2", "a usage error: an unknown command or flag, a flag value that is not allowed; nothing was done"},
	{"3", "analyze read its inputs but found no engine statistics line in them (none at all, or none inside --since/--until): the report is empty"},
	{"128+N", "a command other than run ended by signal N before it finished (130 for SIGINT, 143 for SIGTERM): its output is incomplete"},
}

// errUsage marks errors caused by how specwatch was called.
var errUsage = config.ErrFlag

// errNoEngineLine marks analyze's report without a single sample.
var errNoEngineLine = errors.New("no engine statistics line")

// exitCode maps an action's error to its exit status.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errUsage):
		return exitUsage
	case errors.Is(err, errNoEngineLine):
		return exitNoEngineLine
	}
	return exitFailure
}
