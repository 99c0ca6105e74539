package config

import (
	"strings"

	"github.com/alecthomas/kingpin/v2"
	"github.com/specwatch/specwatch/internal/cliargs"
	"github.com/specwatch/specwatch/internal/cmdhelp"
)

// AddFlags registers config's flags (Flag) with command c; given, when not nil, records which were given
// (run's flags replace their keys only then, so that a default in the help never overrides the
// file).
func AddFlags(c *kingpin.CmdClause, flags []Flag, given map[string]bool) {
	for _, fl := range flags {
		fc := c.Flag(fl.Name, fl.Help)
		if given != nil {
			fc = fc.Action(cliargs.Given(given).Mark(fl.Name))
		}
		// kingpin shows a default in the placeholder's place ("--log.level=info").
		if fl.Default != "" {
			fc = fc.Default(fl.Default)
		} else if fl.Bool == nil {
			fc = fc.PlaceHolder(placeholder(fl))
		}
		switch {
		case fl.Enum != nil:
			cmdhelp.EnumVar(fc, fl.Name, fl.Str, fl.Enum...)
		case fl.Str != nil:
			fc.StringVar(fl.Str)
		case fl.List != nil:
			fc.StringsVar(fl.List)
		case fl.Bool != nil:
			fc.BoolVar(fl.Bool)
		case fl.Int != nil:
			fc.IntVar(fl.Int)
		case fl.Dur != nil:
			fc.SetValue(cliargs.Duration{Name: fl.Name, D: fl.Dur})
		}
	}
}

// placeholder is the help text's stand-in for a flag's value.
func placeholder(fl Flag) string {
	name := fl.Name
	switch {
	case fl.Value != "":
		return fl.Value
	case strings.HasSuffix(name, ".file"):
		return "FILE"
	case strings.HasSuffix(name, ".directory"):
		return "DIR"
	case strings.HasSuffix(name, "address"):
		return "[HOST]:PORT"
	case strings.HasSuffix(name, "url"):
		return "URL"
	}
	return strings.ToUpper(name[strings.LastIndexByte(name, '.')+1:])
}
