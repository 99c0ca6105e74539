package cliargs

import (
	"fmt"
	"strconv"
	"time"

	"github.com/alecthomas/kingpin/v2"
)

// Given records which flags the command line set, by their current name, so that a flag
// overrides its config key only when given (kingpin's defaults are for the help text).
type Given map[string]bool

// Mark is a flag's action that records it as given.
func (g Given) Mark(name string) kingpin.Action {
	return func(*kingpin.ParseContext) error { g[name] = true; return nil }
}

// NonNegative is a float flag's check.
func NonNegative(name string, v *float64) kingpin.Action {
	return func(*kingpin.ParseContext) error {
		if *v < 0 {
			return fmt.Errorf("--%s %s: must not be negative", name, strconv.FormatFloat(*v, 'g', -1, 64))
		}
		return nil
	}
}

// Duration is a time.Duration flag whose error names the flag and says what it wants
// ("--push.interval 5: want a duration such as 15s, 2m or 1h", not time's "missing unit").
type Duration struct {
	Name string
	D    *time.Duration
}

func (v Duration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("--%s %s: want a duration such as 15s, 2m or 1h", v.Name, s)
	}
	*v.D = d
	return nil
}

func (v Duration) String() string { return v.D.String() }
