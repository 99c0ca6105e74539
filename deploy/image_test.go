package deploy

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
	"github.com/specwatch/specwatch/internal/testkit/testpodman"
)

// TestImage builds deploy/Dockerfile with podman (its base is scratch, so no registry is
// involved) from deploy/image/ and a static binary, and runs the image as shipped: the
// default user (non-root, 65532) reading a real journal mounted read-only, with only the
// journal files' group added, as docs/docker.md says. The daemon must become ready, count the
// engine lines written to the journal, and save its cursor in the image's state directory.
// Run with -e NODE_NAME, a file source's series carry that host (not the container's).
func TestImage(t *testing.T) {
	p := testpodman.Start(t)
	j := testjournal.Start(t)
	ctx := filepath.Join(testharness.RepoRoot(t), "deploy", "image")
	extra := map[string]string{}
	for _, name := range []string{"passwd", "group", "state/README"} {
		b, err := os.ReadFile(filepath.Join(ctx, name))
		if err != nil {
			t.Fatal(err)
		}
		extra[name] = string(b)
	}
	image := p.BuildImage(testharness.BuildStatic(t), testharness.DeployPath(t, "Dockerfile"), extra)

	// A line, then the daemon, then more lines: it starts at the tail, so the first is not
	// counted; the next ones are.
	line := func(n int) []byte {
		return fmt.Appendf(nil, "[2026-11-20 09:00:%02d TP0] Decode batch, #running-req: 1, #token: %d, token usage: 0.01, accept len: 3.00, accept rate: 0.40, cuda graph: True, gen throughput (token/s): 60.00, #queue-req: 0", n, 100+n)
	}
	j.Write("", "sglang", line(0))
	j.Sync()
	var st syscall.Stat_t
	if err := syscall.Stat(j.Files()[0], &st); err != nil {
		t.Fatal(err)
	}
	if user := p.ImageConfig(image, "{{.Config.User}}"); user != "65532:65532" {
		t.Errorf("image user %q, want 65532:65532", user)
	}
	volume := p.Volume("specwatch-state")
	addr := testharness.FreeAddr(t)
	start := func() *testpodman.Container {
		return p.Start(testpodman.Run{Image: image, Name: p.Name("specwatch-image"), Network: "host",
			Options: []string{"--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
				"--group-add", fmt.Sprint(st.Gid), "-v", j.Dir() + ":/journal:ro", "-v", volume + ":/var/lib/specwatch"},
			Args: []string{"run", "--web.listen-address", addr, "--journal.directory", "/journal", "--journal.identifier", "sglang"}})
	}
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	waitFor := func(c *testpodman.Container, what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for !ok() {
			select {
			case <-c.Exited():
				t.Fatalf("the container exited before %s:\n%s", what, c.Output())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s within a minute:\n%s", what, c.Output())
			}
			time.Sleep(50 * time.Millisecond) // polling a real process
		}
	}
	matched := func() float64 {
		_, body := get("/metrics")
		v, _ := testharness.MetricValue(body, "specwatch_lines_total", `result="matched"`)
		return v
	}
	c := start()
	waitFor(c, "/-/ready 200", func() bool { code, _ := get("/-/ready"); return code == 200 })
	for n := 1; n <= 5; n++ {
		j.Write("", "sglang", line(n))
	}
	j.Sync()
	waitFor(c, "5 matched lines", func() bool { return matched() >= 5 })
	if m := matched(); m != 5 {
		t.Fatalf("matched %v lines, want 5 (the line before the start is not read)", m)
	}
	if _, body := get("/metrics"); !strings.Contains(body, `unit="sglang"`) {
		t.Errorf("/metrics has no series of unit sglang")
	}
	// Stopped, the daemon saves its cursor in the state volume (as the non-root user); the
	// next container resumes from it: the lines written in between are read, the first five
	// not again.
	c.Stop()
	for n := 6; n <= 8; n++ {
		j.Write("", "sglang", line(n))
	}
	j.Sync()
	c = start()
	waitFor(c, "3 matched lines after the restart", func() bool { return matched() >= 3 })
	if m := matched(); m != 3 {
		t.Fatalf("after the restart, matched %v lines, want 3 (resumed from the saved cursor)", m)
	}
	c.Stop()

	// A file source in the container, run with -e NODE_NAME as docs/docker.md says: its series
	// are the node's, not the container id's (which is what the host name is in a container).
	logs := t.TempDir()
	os.Chmod(logs, 0o755)
	engineLog := filepath.Join(logs, "engine.log")
	if err := os.WriteFile(engineLog, append(line(10), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	const node = "gpu-node-7"
	c = p.Start(testpodman.Run{Image: image, Name: p.Name("specwatch-image-file"), Network: "host",
		Options: []string{"--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
			"-e", "NODE_NAME=" + node, "-v", logs + ":/logs:ro", "-v", p.Volume("specwatch-state-file") + ":/var/lib/specwatch"},
		Args: []string{"run", "--web.listen-address", addr, "--file", "/logs/engine.log"}})
	waitFor(c, "/-/ready 200 with a file source", func() bool { code, _ := get("/-/ready"); return code == 200 })
	f, err := os.OpenFile(engineLog, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for n := 11; n <= 13; n++ {
		f.Write(append(line(n), '\n'))
	}
	f.Close()
	waitFor(c, "a series of the file", func() bool {
		_, body := get("/metrics")
		return strings.Contains(body, "specwatch_samples_total{")
	})
	_, body := get("/metrics")
	if !strings.Contains(body, `host="`+node+`"`) {
		t.Errorf("the file's series are not labelled host=%q (NODE_NAME):\n%s", node, grepLines(body, "specwatch_samples_total"))
	}
	c.Stop()
}

// grepLines are the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
