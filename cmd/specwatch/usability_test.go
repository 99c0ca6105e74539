package main

import (
	"net"
	"os"
	"strings"
	"testing"
)

// TestDidYouMean: a mistyped flag or command is answered with the nearest names from the
// command line's own definitions; a flag of another command names its command; an unknown
// word far from every name lists the commands. All are usage errors (exit status 2).
func TestDidYouMean(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--web.listen-adress", ":1"}, "unknown long flag '--web.listen-adress'; did you mean --web.listen-address? (try specwatch run --help)"},
		{[]string{"run", "--log.levle=debug"}, "did you mean --log.level?"},
		{[]string{"analyze", "--fromat", "json"}, "did you mean --format?"},
		{[]string{"anlyze", "x.log"}, `expected command but got "anlyze"; did you mean analyze? (try specwatch --help)`},
		{[]string{"chekc-config", "x.yaml"}, "did you mean check-config?"},
		{[]string{"help", "rnu"}, "did you mean run?"},
		{[]string{"analyze", "--once"}, "--once is a flag of demo"},
		{[]string{"xyzzy"}, "the commands are run, analyze, demo, simulate, check-config, version"},
	} {
		out, stderr, code := runCmd(t, c.args...)
		if code != exitUsage || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", c.args, code, out, stderr, exitUsage, c.want)
		}
	}
}

// TestEnumErrorNamesFlag: a value outside a flag's words names the flag and the words (kingpin
// said "enum value must be one of text,json,html, got 'yaml'").
func TestEnumErrorNamesFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze", "--format", "yaml"}, `--format "yaml": want text, json or html (try specwatch analyze --help)`},
		{[]string{"analyze", "--format=jsn"}, `--format "jsn": want text, json or html (did you mean json?)`},
		{[]string{"demo", "--once", "--format", "html"}, `--format "html": want text or json`},
		{[]string{"demo", "--scenario", "incident"}, `--scenario "incident": want tour, incidents or engines (did you mean incidents?)`},
	} {
		_, stderr, code := runCmd(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "enum value") {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, exitUsage, c.want)
		}
	}
	if _, stderr, code := runCmd(t, "analyze", "--format", "json", "testdata/multi.log"); code != exitOK {
		t.Errorf("analyze --format json: exit %d: %s", code, stderr)
	}
}

// TestAnalyzeNoEngineLineExit: an analysis that found nothing to diagnose exits 3 and says what
// it read, so that a script cannot take an empty report for a healthy one; one that found
// engine lines exits 0.
func TestAnalyzeNoEngineLineExit(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze", "/dev/null"}, "no engine statistics line in the input: 0 lines read; the report is empty (exit status 3)"},
		{[]string{"analyze", "testdata/noise.log"}, "no engine statistics line in the input: 3 lines read;"},
		{[]string{"analyze", "--timezone", "UTC", "--until", "2000-01-01", "testdata/multi.log"}, "outside --since/--until"},
	} {
		out, stderr, code := runCmd(t, c.args...)
		if code != exitNoEngineLine || !strings.Contains(stderr, c.want) || out == "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %.200q; want %d and %q", c.args, code, stderr, out, exitNoEngineLine, c.want)
		}
	}
	if _, stderr, code := runCmd(t, "analyze", "testdata/multi.log"); code != exitOK {
		t.Errorf("analyze testdata/multi.log: exit %d: %s", code, stderr)
	}
}

// TestListenErrorNamesFlag: a port in use is one line naming the address, the flag and the
// config key, the cause and what to do (it was three wraps of net.Listen's error).
func TestListenErrorNamesFlag(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	addr := held.Addr().String()
	_, stderr, code := runCmd(t, "run", "--web.listen-address", addr, "--state.directory", t.TempDir(), "--journal.directory", t.TempDir())
	want := "specwatch run: cannot listen on " + addr + " (--web.listen-address, config listen): address already in use; pick another port or stop the process holding it\n"
	if code != exitFailure || !strings.HasSuffix(stderr, want) {
		t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitFailure, want)
	}
	if strings.Count(stderr, "address already in use") != 1 || strings.Contains(stderr, "listen tcp") {
		t.Errorf("stderr wraps the listen error more than once: %q", stderr)
	}
}

// TestExitStatusDocumented: docs/cli.md lists the exit statuses of the table run uses, with the
// same meanings.
func TestExitStatusDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.ReplaceAll(string(b), "`", "")
	for _, s := range exitStatus {
		if row := "| " + s[0] + " | " + s[1] + " |"; !strings.Contains(doc, row) {
			t.Errorf("docs/cli.md lacks the row %q", row)
		}
	}
}
