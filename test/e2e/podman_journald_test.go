package e2e

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
	"github.com/specwatch/specwatch/internal/testkit/testpodman"
)

// TestPodmanJournaldTwoContainers is the two-engines case with real parts: two
// containers of the same image, tagged alike (so SYSLOG_IDENTIFIER is the same for both and
// only CONTAINER_NAME tells them apart), log through podman's journald driver into a private
// journald. Every line each container printed must be in the journal with real CONTAINER_*
// fields, and analyze of the journal must give one series per container, each with exactly
// the samples analyze finds in that container's own output, read with every journal backend;
// --container keeps one container's.
func TestPodmanJournaldTwoContainers(t *testing.T) {
	p := testpodman.Start(t)
	j := testjournal.Start(t)
	image := p.BuildImage(testharness.BuildStatic(t), "", nil)
	bin := testharness.BuildSpecwatch(t)

	engines := twoEngines(p.Name)
	for _, e := range engines {
		e.stdout = p.Run(testpodman.Run{Image: image, Name: e.name, LogDriver: "journald",
			LogOpts: []string{"tag=sglang"}, JournalSockets: j.SocketDir(), Args: e.args})
	}
	checkJournaldContainers(t, j, bin, engines, nil)
}

// engine is one simulated engine container: its name, the simulator's arguments, and what it
// printed.
type engine struct {
	name   string
	args   []string
	stdout []byte
}

// twoEngines are the two SGLang engines of one image, of very different sizes.
func twoEngines(name func(string) string) []*engine {
	return []*engine{
		{name: name("sglang-a"), args: []string{"simulate", "--preset", "healthy-day", "--lines", "400", "--seed", "3", "--format", "raw"}},
		{name: name("sglang-b"), args: []string{"simulate", "--preset", "healthy-day", "--lines", "60", "--seed", "4", "--format", "raw"}},
	}
}

// checkJournaldContainers checks what the engines' containers (run with the journald log
// driver and tag sglang) left in j: each one's lines in order with the driver's fields
// (CONTAINER_ID a short id, CONTAINER_TAG, and the fields of extra with the values extra
// gives them for that container), and analyze of the journal with every backend: one series
// per container with the samples analyze finds in that container's own output; --container
// keeps the second one's.
func checkJournaldContainers(t *testing.T, j *testjournal.Journal, bin string, engines []*engine, extra func(e *engine) map[string]string) {
	t.Helper()
	j.Sync()
	out, err := exec.Command("journalctl", "--directory="+j.Dir(), "-o", "json", "--all", "--no-pager", "SYSLOG_IDENTIFIER=sglang").Output()
	if err != nil {
		t.Fatalf("journalctl: %v", err)
	}
	byName := map[string]*engine{}
	for _, e := range engines {
		byName[e.name] = e
	}
	got := map[string][]string{}
	shortID := regexp.MustCompile(`^[0-9a-f]{12}$`)
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var f map[string]any
		if err := json.Unmarshal(line, &f); err != nil {
			t.Fatalf("journalctl -o json: %v: %s", err, line)
		}
		name, _ := f["CONTAINER_NAME"].(string)
		id, _ := f["CONTAINER_ID"].(string)
		if !shortID.MatchString(id) || f["CONTAINER_TAG"] != "sglang" {
			t.Fatalf("entry without the driver's fields (CONTAINER_ID %q, CONTAINER_TAG %v): %s", id, f["CONTAINER_TAG"], line)
		}
		if e := byName[name]; e != nil && extra != nil {
			for k, v := range extra(e) {
				if f[k] != v {
					t.Fatalf("container %s: %s is %v, want %q: %s", name, k, f[k], v, line)
				}
			}
		}
		msg, _ := f["MESSAGE"].(string)
		got[name] = append(got[name], strings.TrimSuffix(msg, "\n"))
	}
	if len(got) != len(engines) {
		t.Fatalf("journal has lines of containers %v, want %d containers", keys(got), len(engines))
	}
	for _, e := range engines {
		want := strings.Split(strings.TrimSuffix(string(e.stdout), "\n"), "\n")
		if strings.Join(got[e.name], "\n") != strings.Join(want, "\n") {
			t.Fatalf("container %s: journal has %d lines, the container printed %d (or they differ)", e.name, len(got[e.name]), len(want))
		}
	}

	// Ground truth per container: analyze of its own output (one engine, so the series it
	// finds are that engine's ranks).
	want := map[string]int64{} // container/rank → samples
	for _, e := range engines {
		for _, s := range analyzeJSON(t, bin, e.stdout) {
			want[e.name+"/"+s.Labels["rank"]] = s.Samples
		}
	}
	if len(want) < 2 {
		t.Fatalf("ground truth has %d series, want one per container at least", len(want))
	}
	for _, backend := range []string{"native", "sdjournal", "journalctl"} {
		series := analyzeJSON(t, bin, nil, "--journal.directory", j.Dir(), "--journal.backend", backend, "--journal.identifier", "sglang")
		have := map[string]int64{}
		for _, s := range series {
			have[s.Labels["container"]+"/"+s.Labels["rank"]] = s.Samples
		}
		if !equalCounts(have, want) {
			t.Errorf("backend %s: series samples %v, want %v (one series per container)", backend, have, want)
		}
	}
	// --container keeps one of them, by a glob on its name.
	only := map[string]int64{}
	for k, v := range want {
		if strings.HasPrefix(k, engines[1].name+"/") {
			only[k] = v
		}
	}
	have := map[string]int64{}
	for _, s := range analyzeJSON(t, bin, nil, "--journal.directory", j.Dir(), "--journal.container", "sglang-b-*") {
		have[s.Labels["container"]+"/"+s.Labels["rank"]] = s.Samples
	}
	if !equalCounts(have, only) {
		t.Errorf("--container sglang-b-*: series samples %v, want %v", have, only)
	}
}

type seriesCount struct {
	Labels  map[string]string `json:"labels"`
	Samples int64             `json:"samples"`
}

// analyzeJSON runs `specwatch analyze --format json` on stdin (or on args' journal) and
// returns its series.
func analyzeJSON(t *testing.T, bin string, stdin []byte, args ...string) []seriesCount {
	t.Helper()
	args = append([]string{"analyze", "--format", "json"}, args...)
	if stdin != nil {
		args = append(args, "-")
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("specwatch %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	var r struct {
		Series []seriesCount `json:"series"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("specwatch %s: %v", strings.Join(args, " "), err)
	}
	return r.Series
}

func equalCounts(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
