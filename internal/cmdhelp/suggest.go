package cmdhelp

import (
	"regexp"
	"sort"
	"strings"

	"github.com/alecthomas/kingpin/v2"
)

// kingpin's parse errors are plain strings; these are the two a typo produces.
var (
	unknownFlagRE    = regexp.MustCompile(`^unknown long flag '--([^'=]+)'`)
	unknownCommandRE = regexp.MustCompile(`^expected command but got "([^"]+)"`)
)

// Suggestion is what to add to a parse error: the names closest to the mistyped flag or
// command (Damerau–Levenshtein distance at most 2), or the command a flag belongs to; "" when
// nothing is close.
func Suggestion(msg string, args []string, app *kingpin.ApplicationModel) string {
	if m := unknownCommandRE.FindStringSubmatch(msg); m != nil {
		var names []string
		for _, c := range app.Commands {
			if !c.Hidden {
				names = append(names, c.Name)
			}
		}
		if near := Closest(m[1], names); len(near) > 0 {
			return "did you mean " + strings.Join(near, " or ") + "?"
		}
		return "the commands are " + strings.Join(names, ", ")
	}
	m := unknownFlagRE.FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	cmd := CommandOf(args, app)
	names := flagNames(app.Flags)
	if cmd != nil {
		names = append(names, flagNames(cmd.Flags)...)
	}
	if near := Closest(m[1], names); len(near) > 0 {
		for i := range near {
			near[i] = "--" + near[i]
		}
		return "did you mean " + strings.Join(near, " or ") + "?"
	}
	// A flag of another command ("analyze --once"): say whose it is.
	var owners []string
	for _, c := range app.Commands {
		if c != cmd && !c.Hidden && contains(flagNames(c.Flags), m[1]) {
			owners = append(owners, c.Name)
		}
	}
	if len(owners) > 0 {
		return "--" + m[1] + " is a flag of " + strings.Join(owners, " and ")
	}
	return ""
}

// CommandOf is the command the arguments select: the first one that is not a flag, when it
// names a command (specwatch's top-level flags take no value).
func CommandOf(args []string, app *kingpin.ApplicationModel) *kingpin.CmdModel {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		for _, c := range app.Commands {
			if c.Name == a {
				return c
			}
		}
		return nil
	}
	return nil
}

func flagNames(flags []*kingpin.FlagModel) []string {
	var names []string
	for _, f := range flags {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	return names
}

func contains(names []string, s string) bool {
	for _, n := range names {
		if n == s {
			return true
		}
	}
	return false
}

// Closest returns the names at the smallest distance from s, sorted, when that is at most 2
// and less than half of s ("yaml" is not a typo of "html").
func Closest(s string, names []string) []string {
	best, near := 3, []string(nil)
	for _, n := range names {
		switch d := Distance(s, n); {
		case 2*d >= len(s):
		case d < best:
			best, near = d, []string{n}
		case d == best:
			near = append(near, n)
		}
	}
	sort.Strings(near)
	return near
}

// Distance is the optimal-string-alignment Damerau–Levenshtein distance: insertions,
// deletions, substitutions and transpositions of adjacent bytes each cost 1.
func Distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
