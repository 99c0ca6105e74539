package report

import (
	"fmt"
	"io"

	"github.com/mattn/go-isatty"
)

// ANSI SGR sequences of the text report's few colours.
const (
	bold   = "1"
	red    = "1;31"
	yellow = "33"
	green  = "32"
	cyan   = "36"
)

// colors writes SGR sequences when on, nothing otherwise, so that the uncoloured text is the
// same bytes as before colours existed.
type colors struct{ on bool }

func (c colors) start(code string) string {
	if !c.on {
		return ""
	}
	return "\x1b[" + code + "m"
}

func (c colors) end(code string) string {
	if !c.on || code == "" {
		return ""
	}
	return "\x1b[0m"
}

// paint wraps s in code; an empty code leaves it plain.
func (c colors) paint(code, s string) string {
	if code == "" {
		return s
	}
	return c.start(code) + s + c.end(code)
}

func verdictColor(v string) string {
	switch v {
	case "anomalous":
		return red
	case "degraded":
		return yellow
	case "healthy":
		return green
	case "expected", "unjudged":
		return cyan
	}
	return ""
}

func severityColor(sev string) string {
	switch sev {
	case "critical":
		return red
	case "warning":
		return yellow
	case "info":
		return cyan
	}
	return ""
}

// UseColor decides TextOptions.Color for a --color mode: "always", "never", or "auto" (and
// ""): w is a terminal, NO_COLOR is unset or empty (no-color.org) and TERM is not "dumb".
// getenv is os.Getenv, injected for tests.
func UseColor(mode string, w io.Writer, getenv func(string) string) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
	default:
		return false, fmt.Errorf("colour mode %q: want auto, always or never", mode)
	}
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false, nil
	}
	f, ok := w.(interface{ Fd() uintptr })
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())), nil
}
