// Package cliargs is what specwatch's command line needs around kingpin: flag values whose
// errors name the flag, a record of which flags were given, and the rewrites of the arguments
// before kingpin parses them, where its lexer reads differently from what the user meant (a
// value that starts with a dash, "--since -2h"; a lone "-" for standard input).
package cliargs

import (
	"strings"

	"github.com/alecthomas/kingpin/v2"
)

// JoinNegative writes "--since -2h" as "--since=-2h": kingpin reads a value that starts with a
// dash as the next flag ("expected argument for flag --since"), and relative times and
// out-of-range numbers ("--speed -1", refused with its reason) start with one. No flag of
// specwatch is a dash and a digit, so nothing else can be meant.
func JoinNegative(args []string) []string {
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

// StdinDash keeps a lone "-" (standard input, `analyze -`) an argument: kingpin's lexer hands
// it over as an empty string, which is also what `analyze ""` gives. When a positional
// argument is a lone "-", every positional argument after the command moves, in its order,
// behind a "--", after which kingpin takes each as it is; flags and their values keep their
// place, and arguments already after a "--" stay behind the moved ones. takesValue says which
// long flags of a command consume the next argument, so that the value of "--format json"
// is not taken for a file; a "-" given as a flag's value is left to the flag.
func StdinDash(args []string, takesValue func(cmd, flag string) bool) []string {
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

// ValueFlags answers StdinDash from the command line's model: whether long flag name of
// command cmd (or of the application, before the command) takes a value. Bool flags, their
// --no- forms and unknown names take none.
func ValueFlags(m *kingpin.ApplicationModel) func(cmd, name string) bool {
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
