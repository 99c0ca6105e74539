package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/internal/cliargs"
	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// TestHelpEverywhere: --help and `help COMMAND` work for every command, exit 0 on standard
// output, and show the defaults; a usage error exits 2 on standard error.
func TestHelpEverywhere(t *testing.T) {
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {"help", c.name}} {
			out, stderr, code := runCmd(t, args...)
			if code != 0 || !strings.Contains(out, "usage: specwatch "+c.name) || stderr != "" {
				t.Errorf("%v: exit %d, stdout %.80q, stderr %q", args, code, out, stderr)
			}
		}
	}
	out, _, _ := runCmd(t, "run", "--help")
	for _, want := range []string{`--web.listen-address=":9877"`, `--log.level="info"`, `--push.interval=15s`, `--state.directory="/var/lib/specwatch"`} {
		if !strings.Contains(out, want) {
			t.Errorf("run --help lacks the default %s:\n%s", want, out)
		}
	}
	for _, args := range [][]string{{"bogus"}, {"run", "--bogus"}, {"check-config"}, {"check-config", "a", "b"},
		{"analyze", "--format", "yaml"}, {"demo", "--speed", "-1"}, {"simulate", "--lines", "-5"},
		{"run", "--push.interval", "5"}, {"analyze", "--since", "soon"}} {
		out, stderr, code := runCmd(t, args...)
		if code != 2 || out != "" || !strings.HasPrefix(stderr, "specwatch") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and the reason on stderr", args, code, out, stderr)
		}
	}
	if _, stderr, _ := runCmd(t, "demo", "--speed", "-1"); !strings.Contains(stderr, "--speed -1: must not be negative") {
		t.Errorf("demo --speed -1: %q", stderr)
	}
	if _, stderr, _ := runCmd(t, "run", "--push.interval", "5"); !strings.Contains(stderr, "--push.interval 5: want a duration") {
		t.Errorf("run --push.interval 5: %q", stderr)
	}
	if out, _, code := runCmd(t, "--version"); code != 0 || !strings.HasPrefix(out, "specwatch ") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}

// TestOldNamesRefused: the names before the Prometheus-style ones, and Go-style single-dash
// long flags, are refused as any unknown flag is (exit 2, the flag named): nothing was released
// under them.
func TestOldNamesRefused(t *testing.T) {
	for _, args := range [][]string{{"run", "--listen", "127.0.0.1:1"}, {"analyze", "--tz", "UTC", "/dev/null"},
		{"demo", "--listen", "127.0.0.1:1"}, {"simulate", "-preset", "healthy-day"}} {
		out, stderr, code := runCmd(t, args...)
		if code != 2 || out != "" || !strings.Contains(stderr, "unknown") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and an unknown flag", args, code, out, stderr)
		}
	}
}

// TestRelativeSince: "--since -2h" is a relative time, not a flag.
func TestRelativeSince(t *testing.T) {
	if got := cliargs.JoinNegative([]string{"analyze", "--since", "-2h", "-", "--until", "-30m", "--format", "json"}); strings.Join(got, " ") != "analyze --since=-2h - --until=-30m --format json" {
		t.Errorf("joinNegative: %q", got)
	}
	// Parsed, and run: /dev/null holds no engine line (exit status 3), not a usage error.
	if _, stderr, code := runCmd(t, "analyze", "--since", "-2h", "/dev/null"); code != exitNoEngineLine {
		t.Errorf("analyze --since -2h: exit %d: %s", code, stderr)
	}
}

// TestManPageAndCompletion: the man page and the completion scripts come from the same
// definitions as the help: every command and every visible flag is in the page. (kingpin
// writes these to the process's standard output, so the built binary runs them.)
func TestManPageAndCompletion(t *testing.T) {
	bin := testharness.BuildSpecwatch(t)
	out := func(args ...string) string {
		b, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("specwatch %v: %v", args, err)
		}
		return string(b)
	}
	man := out("--help-man")
	if !strings.HasPrefix(man, ".TH specwatch 1") || !strings.Contains(man, "specwatch \\- speculative-decoding") {
		t.Fatalf("--help-man:\n%.300s", man)
	}
	app, _ := newApp(nil, nil, func(int) {})
	for _, c := range app.Model().Commands {
		if !strings.Contains(man, `\fB`+c.Name) {
			t.Errorf("man page lacks command %s", c.Name)
		}
		for _, f := range c.Flags {
			if !f.Hidden && !strings.Contains(man, "--"+f.Name) {
				t.Errorf("man page lacks %s --%s", c.Name, f.Name)
			}
		}
	}
	for _, sh := range []string{"bash", "zsh"} {
		if s := out("--completion-script-" + sh); !strings.Contains(s, "specwatch --completion-bash") && !strings.Contains(s, "--completion-bash") {
			t.Errorf("--completion-script-%s: %.200q", sh, s)
		}
	}
	if s := out("--completion-bash", "run", "--web."); !strings.Contains(s, "--web.listen-address") {
		t.Errorf("completion of run --web.: %q", s)
	}
}
