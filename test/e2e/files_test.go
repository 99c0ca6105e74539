//go:build linux

package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// TestFilesExactlyOnce follows a file written at 1,000 lines/s and rotated every second —
// renamed (logrotate's default), every third time copied and truncated (copytruncate), with
// the copies under the glob — while `specwatch run --file` is killed with SIGKILL at 20
// random moments and restarted at once (Restart=always). After each restart the writer pauses
// at a checkpoint, engine.log is deleted and created anew, and old rotated files are deleted:
// the new incarnation must then have applied exactly the lines the test's own ledger puts
// after the positions it started from — none lost, none twice. (Each incarnation's counters
// start at zero, as the journal's exactly-once test in test/soak counts them.)
//
// It is the randomized soak beside ingest/file's TestExactlyOnceEveryInterleaving, which drives
// every interleaving step by step in CI: it runs only with SPECWATCH_SOAK set
// (scripts/soak.sh files N runs it N times, each with a new seed unless SPECWATCH_SOAK_SEED).
func TestFilesExactlyOnce(t *testing.T) {
	if testing.Short() || os.Getenv("SPECWATCH_SOAK") == "" {
		t.Skip("a randomized soak of about a minute: scripts/soak.sh files")
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("SPECWATCH_SOAK_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("SPECWATCH_SOAK_SEED=%q: %v", v, err)
		}
	}
	t.Logf("seed %d (SPECWATCH_SOAK_SEED=%d repeats these kill moments)", seed, seed)
	t.Parallel() // mostly waits on real time, beside the alert paths
	bin := testharness.BuildSpecwatch(t)
	dir := t.TempDir()
	logs, state := filepath.Join(dir, "logs"), filepath.Join(dir, "state")
	must(t, mkdirs(logs, state))
	l := newFileLedger(t, logs)
	if keep := os.Getenv("SPECWATCH_SOAK_KEEP"); keep != "" {
		t.Cleanup(func() {
			if t.Failed() {
				b, _ := os.ReadFile(filepath.Join(dir, "specwatch.log"))
				os.WriteFile(filepath.Join(keep, fmt.Sprintf("files-%d.log", seed)), b, 0o644)
			}
		})
	}
	d := testharness.NewDaemon(t, bin, testharness.FreeAddr(t), state, filepath.Join(dir, "specwatch.log"),
		"--file", filepath.Join(logs, "engine.log*"), "--log.level", "debug")
	d.Start()
	l.checkpoint(t, d, nil, "first start")

	stop := make(chan struct{})
	done := make(chan struct{})
	go l.writeLoop(stop, done)
	defer func() { close(stop); <-done }()
	rng := rand.New(rand.NewPCG(seed, 0))
	for kill := 1; kill <= 20; kill++ {
		// A random moment: 0.2–1.7 s into the stream, somewhere around a rotation.
		timer := time.NewTimer(time.Duration(200+rng.IntN(1500)) * time.Millisecond)
		<-timer.C
		d.Signal(syscall.SIGKILL)
		d.Wait()
		pos := readPositions(t, state)
		d.Start()
		l.checkpoint(t, d, pos, "after kill "+strconv.Itoa(kill))
	}
}

// writeLoop writes a line every millisecond and rotates every second until stop.
func (l *fileLedger) writeLoop(stop, done chan struct{}) {
	defer close(done)
	lines := time.NewTicker(time.Millisecond)
	defer lines.Stop()
	rotations := time.NewTicker(time.Second)
	defer rotations.Stop()
	n := 0
	for {
		select {
		case <-stop:
			return
		case <-lines.C:
			l.mu.Lock()
			l.write()
			l.mu.Unlock()
		case <-rotations.C:
			n++
			l.mu.Lock()
			if n%3 == 0 {
				l.copyTruncate()
			} else {
				l.rotate()
			}
			l.mu.Unlock()
		}
	}
}

// checkpoint pauses the writer, waits until the incarnation started from pos has applied
// every line after pos, and checks it applied no more; then deletes and re-creates engine.log
// and deletes rotated files past the fifth, all read by now.
func (l *fileLedger) checkpoint(t *testing.T, d *testharness.Daemon, pos []savedPosition, what string) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	want := l.after(pos)
	deadline := time.Now().Add(20 * time.Second)
	var got float64
	for {
		body, err := d.Metrics()
		if err != nil {
			t.Fatal(err)
		}
		got = 0
		for _, r := range []string{"matched", "ignored", "malformed"} {
			v, _ := testharness.MetricValue(body, "specwatch_lines_total", `result="`+r+`"`)
			got += v
		}
		if int(got) >= want || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // polling a real process
	}
	// Lines applied twice would arrive with the others; a second more finds any straggler.
	settle := time.NewTimer(time.Second)
	<-settle.C
	body, _ := d.Metrics()
	got = 0
	for _, r := range []string{"matched", "ignored", "malformed"} {
		v, _ := testharness.MetricValue(body, "specwatch_lines_total", `result="`+r+`"`)
		got += v
	}
	if int(got) != want {
		t.Fatalf("%s: the incarnation applied %d lines, want exactly the %d after its saved positions (of %d written; positions %+v)\ngenerations:\n%s%s",
			what, int(got), want, l.seq, pos, l.describe(), testharness.Tail(filepath.Join(filepath.Dir(l.dir), "specwatch.log"), 3000))
	}
	t.Logf("%s: %d lines applied of %d written, exactly those after the saved positions", what, want, l.seq)
	if l.seq > 0 {
		l.recreate()
		l.prune(5)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mkdirs(dirs ...string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}
