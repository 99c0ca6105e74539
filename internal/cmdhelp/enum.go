package cmdhelp

import (
	"fmt"
	"strings"

	"github.com/alecthomas/kingpin/v2"
)

// enumValue is a flag that takes one of a few words; its error names the flag, the words, and
// the nearest one ("--format yaml: want text, json or html"), where kingpin's names neither.
type enumValue struct {
	name    string
	s       *string
	options []string
}

func (v *enumValue) Set(s string) error {
	for _, o := range v.options {
		if s == o {
			*v.s = s
			return nil
		}
	}
	msg := fmt.Sprintf("--%s %q: want %s", v.name, s, OrList(v.options))
	if near := Closest(s, v.options); len(near) > 0 {
		msg += " (did you mean " + strings.Join(near, " or ") + "?)"
	}
	return fmt.Errorf("%s", msg) // a parse error: exit status 2
}

func (v *enumValue) String() string { return *v.s }

// EnumVar makes fc an enum flag writing to s.
func EnumVar(fc *kingpin.FlagClause, name string, s *string, options ...string) {
	fc.HintOptions(options...).SetValue(&enumValue{name: name, s: s, options: options})
}

// OrList is "a, b or c".
func OrList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
