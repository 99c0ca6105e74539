package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/internal/cliargs"
	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/model"
)

// TestStdinDash: the pre-pass that keeps a lone "-" an argument, on the real command line's
// model: positionals move behind "--" in their order, flags keep their values, and a "-" that
// is a flag's value or already after "--" is left where it is.
func TestStdinDash(t *testing.T) {
	app, _ := newApp(io.Discard, io.Discard, func(int) {})
	takes := cliargs.ValueFlags(app.Model())
	for _, c := range []struct{ in, want string }{
		{"analyze -", "analyze -- -"},
		{"analyze - --format json", "analyze --format json -- -"},
		{"analyze --format json -", "analyze --format json -- -"},
		{"analyze a.log - --since=-2h b.log", "analyze --since=-2h -- a.log - b.log"},
		{"analyze --help -", "analyze --help -- -"},                                // a bool flag takes none
		{"analyze - -- --format", "analyze -- - --format"},                         // after "--", after the moved ones
		{"analyze a.log -- - b.log", "analyze a.log -- - b.log"},                   // already behind "--"
		{"analyze --format - a.log", "analyze --format - a.log"},                   // "-" is the flag's value
		{"analyze --format json a.log b.log", "analyze --format json a.log b.log"}, // no "-": untouched
		{"check-config -", "check-config -- -"},
		{"analyze", "analyze"},
		{"-", "-"}, // the command's name: kingpin refuses it
	} {
		in := strings.Fields(c.in)
		if got := strings.Join(cliargs.StdinDash(in, takes), " "); got != c.want {
			t.Errorf("stdinDash(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if !takes("analyze", "format") || takes("analyze", "help") || takes("analyze", "no-such-flag") || !takes("run", "config.file") {
		t.Errorf("valueFlags: format %v, help %v, unknown %v, run's config.file %v", takes("analyze", "format"),
			takes("analyze", "help"), takes("analyze", "no-such-flag"), takes("run", "config.file"))
	}
}

// TestAnalyzeStdinDash: `analyze -` reads standard input (a pipe, as `cat x | specwatch
// analyze -`), wherever the flags are and with "--", and gives the report the file gives;
// "-" between two files reads the pipe between them; an empty argument is no longer standard
// input but a file that does not exist.
func TestAnalyzeStdinDash(t *testing.T) {
	bin := testharness.BuildSpecwatch(t)
	log, err := os.ReadFile("testdata/multi.log")
	if err != nil {
		t.Fatal(err)
	}
	dir := "" // where analyze runs; "" is the package directory
	analyze := func(args ...string) (model.Report, string, int) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"analyze"}, args...)...)
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(log)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		err := cmd.Run()
		var r model.Report
		if err == nil {
			if jerr := json.Unmarshal(out.Bytes(), &r); jerr != nil {
				t.Fatalf("analyze %q: not JSON: %v", args, jerr)
			}
		}
		return r, stderr.String(), cmd.ProcessState.ExitCode()
	}
	file, stderr, code := analyze("--format", "json", "--timezone", "UTC", "testdata/multi.log")
	if code != 0 || file.Input.Lines != 23 {
		t.Fatalf("analyze FILE: exit %d, %d lines: %s", code, file.Input.Lines, stderr)
	}
	for _, args := range [][]string{
		{"--format", "json", "--timezone", "UTC", "-"},
		{"-", "--format", "json", "--timezone", "UTC"},
		{"--format=json", "-", "--timezone", "UTC"},
		{"--format", "json", "--timezone", "UTC", "--", "-"},
	} {
		r, stderr, code := analyze(args...)
		if code != 0 || r.Input != file.Input || len(r.Series) != len(file.Series) {
			t.Errorf("analyze %q: exit %d, input %+v with %d series, want %+v with %d as from the file: %s",
				args, code, r.Input, len(r.Series), file.Input, len(file.Series), stderr)
		}
	}
	both, stderr, code := analyze("--format", "json", "--timezone", "UTC", "testdata/multi.log", "-")
	if code != 0 || both.Input.Lines != 2*file.Input.Lines {
		t.Errorf("analyze FILE -: exit %d, %d lines, want %d (the file, then the pipe): %s", code, both.Input.Lines, 2*file.Input.Lines, stderr)
	}
	if _, stderr, code := analyze("--format", "json", ""); code != 1 || !strings.Contains(stderr, "no such file") {
		t.Errorf(`analyze "": exit %d, stderr %q; want a missing file, not standard input`, code, stderr)
	}
	// A log whose name starts with "@" is a log, not a file of arguments (kingpin's expansion).
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "@gpu07.log"), log, 0o644); err != nil {
		t.Fatal(err)
	}
	if r, stderr, code := analyze("--format", "json", "--timezone", "UTC", "@gpu07.log"); code != 0 || r.Input != file.Input {
		t.Errorf("analyze @gpu07.log: exit %d, input %+v, want %+v: %s", code, r.Input, file.Input, stderr)
	}
}
