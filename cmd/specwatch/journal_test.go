package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

const unit = "sglang.service"

// decodeLine is the i-th decode line of a test stream; #token carries i so that the latest
// value on /metrics says which line was applied last.
func decodeLine(i int) []byte {
	return fmt.Appendf(nil, "[2026-11-20 09:00:00 TP0] Decode batch, #running-req: 1, #token: %d, token usage: 0.01, accept len: 3.00, accept rate: 0.40, cuda graph: True, gen throughput (token/s): 60.00, #queue-req: 0", i)
}

// N lines written while the daemon follows the journal: exactly N samples, the last one last.
func TestRunFollowsEveryLineExactlyOnce(t *testing.T) {
	j := testjournal.Start(t)
	p := startRun(t, "--journal.directory", j.Dir(), "--journal.unit", unit, "--state.directory", t.TempDir())
	eventually(t, "ready", func() bool { return ready(p.url("/-/ready")) })
	const n = 3000
	for i := 1; i <= n; i++ {
		j.Write(unit, "python3", decodeLine(i))
	}
	j.Write("other.service", "nginx", []byte("GET / 200")) // another unit: not matched
	j.Sync()
	eventually(t, "all samples", func() bool {
		v, _ := testharness.MetricValue(get(p.url("/metrics")), "specwatch_lines_total", `result="matched"`)
		return v >= n
	})
	body := get(p.url("/metrics"))
	if v, _ := testharness.MetricValue(body, "specwatch_lines_total", `result="matched"`); v != n {
		t.Errorf("matched lines %v, want %d", v, n)
	}
	if v, _ := testharness.MetricValue(body, "specwatch_context_tokens", `rank="TP0"`); v != n {
		t.Errorf("last context %v, want %d (the last line applied last)", v, n)
	}
	for _, r := range []string{"ignored", "malformed"} {
		if v, _ := testharness.MetricValue(body, "specwatch_lines_total", `result="`+r+`"`); v != 0 {
			t.Errorf("%s lines %v, want 0 (other units are not read)", r, v)
		}
	}
}

// SIGKILL at random moments while a stream is written; every restart resumes after the cursor
// the killed process had saved. The last incarnation must apply exactly the entries after its
// starting cursor, as counted independently by journalctl.
func TestRunResumesExactlyAfterKills(t *testing.T) {
	j := testjournal.Start(t)
	state := t.TempDir()
	total, kills := 40000, 8
	if testing.Short() {
		total, kills = 10000, 3
	}
	written := make(chan struct{})
	go func() {
		defer close(written)
		for i := 1; i <= total; i++ {
			for j.Send(unit, "python3", decodeLine(i)) != nil {
				time.Sleep(time.Millisecond) // journald busy: retry, never drop
			}
			if i%20 == 0 {
				time.Sleep(6 * time.Millisecond) // ~3,000 lines/s, so the kills land mid-stream
			}
		}
	}()
	rng := rand.New(rand.NewPCG(1, 2))
	var cursors []string
	var midStream int
	for k := 0; k < kills; k++ {
		p := startRun(t, "--journal.directory", j.Dir(), "--journal.unit", unit, "--state.directory", state, "--journal.since", "2000-01-01")
		p.url("/")
		time.Sleep(time.Duration(300+rng.IntN(2000)) * time.Millisecond) // a random moment, flushes included
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.wait()
		c, _ := os.ReadFile(filepath.Join(state, "journal.cursor"))
		cursors = append(cursors, string(c))
		select {
		case <-written:
		default:
			midStream++
		}
	}
	<-written
	j.Sync()
	start := cursors[len(cursors)-1]
	if start == "" {
		t.Fatal("no cursor was ever saved")
	}
	out, err := exec.Command("journalctl", "-D", j.Dir(), "_SYSTEMD_UNIT="+unit, "--after-cursor="+start, "-o", "cat").Output()
	if err != nil {
		t.Fatalf("journalctl: %v", err)
	}
	want := strings.Count(string(out), "\n")
	p := startRun(t, "--journal.directory", j.Dir(), "--journal.unit", unit, "--state.directory", state)
	eventually(t, "caught up", func() bool { return ready(p.url("/-/ready")) })
	got, _ := testharness.MetricValue(get(p.url("/metrics")), "specwatch_lines_total", `result="matched"`)
	t.Logf("%d kills (%d while the stream was being written); the last incarnation applied %v entries, journalctl counts %d after its cursor",
		kills, midStream, got, want)
	if int(got) != want {
		t.Fatalf("applied %v entries after the cursor, journalctl counts %d", got, want)
	}
}
