package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/demo"
)

// TestAnalyzeColor: --color always colours the text report, never and the default on a pipe do
// not, and the uncoloured text is the coloured one without its escapes.
func TestAnalyzeColor(t *testing.T) {
	src := demo.Scenarios[0].Log()
	defer src.Close()
	log := filepath.Join(t.TempDir(), "demo.log")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadFrom(src); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := map[string]string{}
	for _, mode := range []string{"always", "never", ""} {
		args := []string{"analyze", log}
		if mode != "" {
			args = append(args, "--color", mode)
		}
		stdout, stderr, code := runCmd(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		out[mode] = stdout
	}
	if !strings.Contains(out["always"], "\x1b[") {
		t.Error("--color always: no colour")
	}
	for _, mode := range []string{"never", ""} {
		if strings.Contains(out[mode], "\x1b[") {
			t.Errorf("--color %q: coloured on a pipe", mode)
		}
	}
	if out["never"] != out[""] || len(out["never"]) == 0 {
		t.Error("--color never and the default on a pipe differ")
	}
	if plain := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(out["always"], ""); plain != out["never"] {
		t.Error("the coloured report without its escapes is not the plain one")
	}
	if _, stderr, code := runCmd(t, "analyze", log, "--color", "blue"); code != exitUsage || !strings.Contains(stderr, "--color") {
		t.Errorf("--color blue: exit %d: %s", code, stderr)
	}
}
