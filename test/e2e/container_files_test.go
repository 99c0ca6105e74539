package e2e

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/internal/testkit/testpodman"
)

// -update rewrites testdata/podman-k8s-file/ and testdata/docker-json-file/ from the runs
// below: real log files of real runtimes, for the file decoders' tests.
var update = flag.Bool("update", false, "rewrite the captured container log files under testdata/")

// criLine is the CRI log format as the kubelet and Podman's k8s-file driver write it:
// RFC 3339 time with nanoseconds, the stream, P (partial: the line goes on in the next
// record) or F (full: the line ends here), one space, the bytes of the line.
var criLine = regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+(?:Z|[+-]\d\d:\d\d)) (stdout|stderr) ([PF]) (.*)$`)

// joinCRI decodes a CRI log file by its documented shape into the lines written, failing on
// any record of another shape; a P record at the very end (the line not finished) is an
// error too, as the runs below end every line.
func joinCRI(t *testing.T, data []byte) []string {
	t.Helper()
	var lines []string
	var cur strings.Builder
	partial := false
	for i, rec := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		m := criLine.FindStringSubmatch(rec)
		if m == nil {
			t.Fatalf("CRI record %d is not TIME STREAM P|F MESSAGE: %q", i, rec)
		}
		if _, err := time.Parse(time.RFC3339Nano, m[1]); err != nil {
			t.Fatalf("CRI record %d: time %q: %v", i, m[1], err)
		}
		cur.WriteString(m[4])
		partial = m[3] == "P"
		if !partial {
			lines = append(lines, cur.String())
			cur.Reset()
		}
	}
	if partial {
		t.Fatalf("the file ends inside a partial line")
	}
	return lines
}

// joinJSONFile decodes Docker json-file records ({"log","stream","time"} a line; a "log"
// without a final newline is a partial line that goes on in the next record).
func joinJSONFile(t *testing.T, data []byte) []string {
	t.Helper()
	var lines []string
	var cur strings.Builder
	for i, rec := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var r struct {
			Log    *string `json:"log"`
			Stream string  `json:"stream"`
			Time   string  `json:"time"`
		}
		d := json.NewDecoder(bytes.NewReader(rec))
		d.DisallowUnknownFields()
		if err := d.Decode(&r); err != nil || r.Log == nil || (r.Stream != "stdout" && r.Stream != "stderr") {
			t.Fatalf("json-file record %d is not {log, stream, time}: %v: %s", i, err, rec)
		}
		if _, err := time.Parse(time.RFC3339Nano, r.Time); err != nil {
			t.Fatalf("json-file record %d: time %q: %v", i, r.Time, err)
		}
		cur.WriteString(*r.Log)
		if strings.HasSuffix(*r.Log, "\n") {
			lines = append(lines, strings.TrimSuffix(cur.String(), "\n"))
			cur.Reset()
		}
	}
	return lines
}

func stdoutLines(b []byte) []string { return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") }

// isSuffix says whether got is the last len(got) lines of all: what rotation leaves.
func isSuffix(got, all []string) bool {
	return len(got) > 0 && len(got) <= len(all) && strings.Join(got, "\n") == strings.Join(all[len(all)-len(got):], "\n")
}

// TestPodmanK8sFile runs the engine with podman's k8s-file log driver (the CRI format of
// /var/log/pods), once whole and once with --log-opt max-size small enough to rotate many
// times: the whole file decodes to exactly the lines printed; the rotated one to the last of
// them. Podman (conmon) rotates by truncating the file in place, so no older sibling is
// left: a follower sees a copytruncate, not a rename.
func TestPodmanK8sFile(t *testing.T) {
	p := testpodman.Start(t)
	image := p.BuildImage(testharness.BuildStatic(t), "", nil)
	dir := t.TempDir()
	args := []string{"simulate", "--preset", "healthy-day", "--lines", "300", "--seed", "5", "--format", "raw"}
	whole := filepath.Join(dir, "whole", "0.log")
	rotated := filepath.Join(dir, "rotated", "0.log")
	os.MkdirAll(filepath.Dir(whole), 0o755)
	os.MkdirAll(filepath.Dir(rotated), 0o755)
	out := p.Run(testpodman.Run{Image: image, Name: p.Name("k8s-whole"), LogDriver: "k8s-file", LogOpts: []string{"path=" + whole}, Args: args})
	want := stdoutLines(out)
	wb, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	if got := joinCRI(t, wb); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the k8s-file log decodes to %d lines, the container printed %d (or they differ)", len(got), len(want))
	}
	out = p.Run(testpodman.Run{Image: image, Name: p.Name("k8s-rotated"), LogDriver: "k8s-file",
		LogOpts: []string{"path=" + rotated, "max-size=16k"}, Args: args})
	rb, err := os.ReadFile(rotated)
	if err != nil {
		t.Fatal(err)
	}
	siblings, _ := filepath.Glob(filepath.Join(filepath.Dir(rotated), "*"))
	got := joinCRI(t, rb)
	if !isSuffix(got, stdoutLines(out)) || len(got) == len(stdoutLines(out)) || len(siblings) != 1 {
		t.Fatalf("rotated: %d lines in %v, want the last of the %d printed, in one file", len(got), siblings, len(stdoutLines(out)))
	}
	if *update {
		writeCapture(t, "podman-k8s-file", map[string][]byte{"whole/0.log": wb, "whole.stdout": out, "rotated/0.log": rb})
	}
}

// TestDockerJSONFile runs the engine with Docker's json-file driver rotating by renames
// (max-size, max-file=3): the current file and its siblings .1 and .2, oldest last, decode to
// the last lines printed, and config.v2.json names the container (with Docker's leading
// slash).
func TestDockerJSONFile(t *testing.T) {
	d := testpodman.StartDocker(t, "")
	image := d.ImportImage(testharness.BuildStatic(t))
	args := []string{"simulate", "--preset", "healthy-day", "--lines", "300", "--seed", "5", "--format", "raw"}
	const name = "sglang-json"
	out, id := d.Run(testpodman.Run{Image: image, Name: name, LogDriver: "json-file",
		LogOpts: []string{"max-size=16k", "max-file=3"}, Args: args})
	cdir := filepath.Join(d.DataRoot(), "containers", id)
	base := filepath.Join(cdir, id+"-json.log")
	var all []byte
	files := map[string][]byte{}
	for _, suffix := range []string{".2", ".1", ""} {
		b, err := os.ReadFile(base + suffix)
		if err != nil {
			t.Fatalf("json-file rotation left no %s: %v", filepath.Base(base+suffix), err)
		}
		all = append(all, b...)
		files[fmt.Sprintf("containers/%s/%s-json.log%s", id, id, suffix)] = b
	}
	if _, err := os.Stat(base + ".3"); err == nil {
		t.Fatal("max-file=3 left a fourth file")
	}
	got := joinJSONFile(t, all)
	if !isSuffix(got, stdoutLines(out)) || len(got) == len(stdoutLines(out)) {
		t.Fatalf("json-file: %d lines, want the last of the %d printed", len(got), len(stdoutLines(out)))
	}
	cfg, err := os.ReadFile(filepath.Join(cdir, "config.v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Name   string
		Config struct{ Image string }
	}
	if err := json.Unmarshal(cfg, &c); err != nil || c.Name != "/"+name || c.Config.Image != image {
		t.Fatalf("config.v2.json: name %q image %q (%v), want /%s and %s", c.Name, c.Config.Image, err, name, image)
	}
	if *update {
		files["containers/"+id+"/config.v2.json"] = cfg
		files["stdout"] = out
		writeCapture(t, "docker-json-file", files)
	}
}

// writeCapture replaces testdata/<name>/ with files.
func writeCapture(t *testing.T, name string, files map[string][]byte) {
	t.Helper()
	dir := filepath.Join("testdata", name)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for p, b := range files {
		path := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCapturedContainerLogs checks the files committed under testdata/ (by -update above)
// against their documented shapes and the engine's own output, so that the decoders tested
// on them are tested on what the runtimes really write: the whole k8s-file log holds exactly
// the lines printed, partial (P) records included; the rotated one and Docker's three
// json-file files (oldest .2 first) hold the last of them.
func TestCapturedContainerLogs(t *testing.T) {
	read := func(p string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	whole := read("podman-k8s-file/whole/0.log")
	want := stdoutLines(read("podman-k8s-file/whole.stdout"))
	if got := joinCRI(t, whole); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("podman-k8s-file/whole/0.log: %d lines, want the %d of whole.stdout", len(got), len(want))
	}
	if !bytes.Contains(whole, []byte(" stdout P ")) {
		t.Error("podman-k8s-file/whole/0.log has no partial record: recapture it with -update")
	}
	if got := joinCRI(t, read("podman-k8s-file/rotated/0.log")); !isSuffix(got, want) || len(got) == len(want) {
		t.Errorf("podman-k8s-file/rotated/0.log: %d lines, want the last of whole.stdout's %d", len(got), len(want))
	}
	logs, _ := filepath.Glob(filepath.Join("testdata", "docker-json-file", "containers", "*", "*-json.log"))
	if len(logs) != 1 {
		t.Fatalf("docker-json-file: %d containers, want 1", len(logs))
	}
	var all []byte
	for _, suffix := range []string{".2", ".1", ""} {
		b, err := os.ReadFile(logs[0] + suffix)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	want = stdoutLines(read("docker-json-file/stdout"))
	if got := joinJSONFile(t, all); !isSuffix(got, want) || len(got) == len(want) {
		t.Errorf("docker-json-file: %d lines, want the last of stdout's %d", len(got), len(want))
	}
}

// TestAnalyzeCapturedContainerLogs: analyze reads the files real runtimes wrote (podman's
// k8s-file with conmon's partial records; Docker's json-file with two rotated siblings) as it
// reads what the engine printed: the same lines, the same series with the same samples, and
// the container named (Docker: from config.v2.json, for the rotated files too).
func TestAnalyzeCapturedContainerLogs(t *testing.T) {
	bin := testharness.BuildSpecwatch(t)
	type series struct {
		Labels  map[string]string `json:"labels"`
		Samples int64             `json:"samples"`
	}
	analyze := func(dir string, args ...string) (lines int64, ss []series) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"analyze", "--format", "json", "--timezone", "UTC"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("analyze %v: %v", args, err)
		}
		var r struct {
			Input struct {
				Lines int64 `json:"lines"`
			} `json:"input"`
			Series []series `json:"series"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		return r.Input.Lines, r.Series
	}
	tmp := t.TempDir()
	raw := func(lines []string) string {
		p := filepath.Join(tmp, "raw.log")
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	read := func(p string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	check := func(name string, gotLines int64, got []series, wantLines int64, want []series, container string) {
		t.Helper()
		if gotLines != wantLines || len(got) != len(want) || len(got) == 0 {
			t.Fatalf("%s: %d lines, %d series; the engine's output %d lines, %d series", name, gotLines, len(got), wantLines, len(want))
		}
		for i := range got {
			if got[i].Samples != want[i].Samples || got[i].Labels["rank"] != want[i].Labels["rank"] || got[i].Labels["container"] != container {
				t.Errorf("%s: series %v with %d samples, want rank %q with %d and container %q", name, got[i].Labels, got[i].Samples, want[i].Labels["rank"], want[i].Samples, container)
			}
		}
	}
	whole := stdoutLines(read("podman-k8s-file/whole.stdout"))
	gl, gs := analyze(filepath.Join("testdata", "podman-k8s-file", "whole"), "0.log")
	wl, ws := analyze(tmp, raw(whole))
	check("podman k8s-file", gl, gs, wl, ws, "") // the path is not a kubelet's: no container

	logs, _ := filepath.Glob(filepath.Join("testdata", "docker-json-file", "containers", "*", "*-json.log"))
	if len(logs) != 1 {
		t.Fatalf("docker-json-file: %d containers, want 1", len(logs))
	}
	base := filepath.Base(logs[0])
	var all []byte
	for _, suffix := range []string{".2", ".1", ""} {
		all = append(all, read(filepath.Join("docker-json-file", "containers", filepath.Base(filepath.Dir(logs[0])), base+suffix))...)
	}
	lines := joinJSONFile(t, all)
	gl, gs = analyze(filepath.Dir(logs[0]), base+".2", base+".1", base)
	wl, ws = analyze(tmp, raw(lines))
	check("docker json-file", gl, gs, wl, ws, "sglang-json")
}
