package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// TestManPageSections: the man page has the sections a man page is read for, in order, its
// EXIT STATUS is the table run uses, and man renders it without a warning (as lintian runs it).
func TestManPageSections(t *testing.T) {
	bin := testharness.BuildSpecwatch(t)
	r := testharness.RunCmd(t, time.Minute, "", nil, bin, "--help-man")
	if r.Code != 0 {
		t.Fatalf("--help-man: %s", r.Output())
	}
	man := r.Stdout
	at := 0
	for _, s := range []string{"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "FILES", "SIGNALS", "EXIT STATUS", "EXAMPLES", "SEE ALSO"} {
		i := strings.Index(man, ".SH \""+s+"\"\n")
		if i < at {
			t.Errorf("section %s missing or out of order", s)
			continue
		}
		at = i
	}
	status := man[strings.Index(man, ".SH \"EXIT STATUS\""):]
	for _, s := range exitStatus {
		if !strings.Contains(status, ".B "+s[0]+"\n") {
			t.Errorf("EXIT STATUS lacks %s", s[0])
		}
	}
	for _, want := range []string{"/etc/specwatch/specwatch.yaml", "/var/lib/specwatch", "\\fB\\-\\-state.directory\\fR", "specwatch.service", ".B SIGHUP", ".B SIGTERM, SIGINT"} {
		if !strings.Contains(man, want) {
			t.Errorf("man page lacks %q", want)
		}
	}
	for i, line := range strings.Split(man, "\n") {
		for _, r := range line {
			if r > 127 {
				t.Errorf("line %d is not ASCII (troff warns): %q", i+1, line)
				break
			}
		}
	}
	manCmd := testharness.NeedTool(t, "man", "man-db")
	page := filepath.Join(t.TempDir(), "specwatch.1")
	if err := os.WriteFile(page, []byte(man), 0o644); err != nil {
		t.Fatal(err)
	}
	r = testharness.RunCmd(t, time.Minute, "", []string{"LC_ALL=C.UTF-8", "MANROFFSEQ=", "MANWIDTH=80"}, manCmd, "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", page)
	if r.Code != 0 || r.Stderr != "" {
		t.Errorf("man --warnings -l specwatch.1: exit %d:\n%s", r.Code, r.Stderr)
	}
}

// TestCompletionShells: each completion script loads in its real shell and completes a flag.
func TestCompletionShells(t *testing.T) {
	bin := testharness.BuildSpecwatch(t)
	// The bash and zsh scripts call the binary by the name typed: put it on PATH.
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "specwatch")); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + dir + ":" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	script := func(shell, name string) string {
		r := testharness.RunCmd(t, time.Minute, "", nil, bin, "--completion-script-"+shell)
		p := filepath.Join(dir, name)
		if r.Code != 0 || os.WriteFile(p, []byte(r.Stdout), 0o644) != nil {
			t.Fatalf("--completion-script-%s: %s", shell, r.Output())
		}
		return p
	}
	t.Run("bash", func(t *testing.T) {
		bash := testharness.NeedTool(t, "bash", "bash")
		lib := "/usr/share/bash-completion/bash_completion"
		if _, err := os.Stat(lib); err != nil {
			t.Skipf("SKIP: %s missing; install the Debian package bash-completion (scripts/deps.sh does)", lib)
		}
		p := script("bash", "specwatch.bash")
		if r := testharness.RunCmd(t, time.Minute, "", env, bash, "-n", p); r.Code != 0 {
			t.Fatalf("bash -n: %s", r.Output())
		}
		r := testharness.RunCmd(t, time.Minute, "", env, bash, "-c", `source `+lib+` && source "$1" && complete -p specwatch &&
			COMP_WORDS=(specwatch run --web.li) COMP_CWORD=2 && _specwatch_bash_autocomplete && printf '%s\n' "${COMPREPLY[@]}"`, "bash", p)
		if r.Code != 0 || !strings.Contains(r.Stdout, "complete -o default -F _specwatch_bash_autocomplete specwatch") || !strings.Contains(r.Stdout, "\n--web.listen-address\n") {
			t.Errorf("bash: exit %d:\n%s", r.Code, r.Output())
		}
	})
	t.Run("zsh", func(t *testing.T) {
		zsh := testharness.NeedTool(t, "zsh", "zsh")
		p := script("zsh", "specwatch.zsh")
		if r := testharness.RunCmd(t, time.Minute, "", env, zsh, "-n", p); r.Code != 0 {
			t.Fatalf("zsh -n: %s", r.Output())
		}
		r := testharness.RunCmd(t, time.Minute, "", env, zsh, "-fc", `autoload -U compinit && compinit -u -D && source "$1" && print -r -- "${_comps[specwatch]}"`, "zsh", p)
		if r.Code != 0 || strings.TrimSpace(r.Stdout) != "_specwatch" {
			t.Errorf("zsh: exit %d:\n%s", r.Code, r.Output())
		}
	})
	t.Run("fish", func(t *testing.T) {
		fish := testharness.NeedTool(t, "fish", "fish")
		p := script("fish", "specwatch.fish")
		if r := testharness.RunCmd(t, time.Minute, "", env, fish, "-n", p); r.Code != 0 {
			t.Fatalf("fish -n: %s", r.Output())
		}
		for line, want := range map[string]string{
			"specwatch anal":              "analyze\tDiagnose logs offline",
			"specwatch run --web.li":      "--web.listen-address\taddress of /metrics",
			"specwatch analyze --format ": "json\t",
			"specwatch help check":        "check-config",
			"specwatch demo --scen":       "--scenario\t",
		} {
			r := testharness.RunCmd(t, time.Minute, "", env, fish, "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, p, line)
			if r.Code != 0 || !strings.Contains(r.Stdout, want) {
				t.Errorf("fish: complete -C %q: exit %d, want %q:\n%s", line, r.Code, want, r.Output())
			}
		}
		// Only run's flags after run.
		if r := testharness.RunCmd(t, time.Minute, "", env, fish, "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, p, "specwatch analyze --web."); strings.Contains(r.Stdout, "--web.listen-address") {
			t.Errorf("fish offers run's --web.listen-address after analyze:\n%s", r.Stdout)
		}
	})
}
