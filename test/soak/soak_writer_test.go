package soak

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
	"github.com/specwatch/specwatch/sim"
)

// The soak's load: a simulated 4-rank SGLang service replayed into a private journald at
// speedup× real time, with three lines of other units' noise per engine line. The writer never
// drops a line: while journald is down it retries until the line is taken.

const soakUnit = "sglang.service"

// soakScenario is span of a 4-rank SGLang EAGLE service kept busy (six requests per rank at all
// times; a decode line every 40 steps, about 1.2 M of them a week), with the engine's own
// chatter (tracebacks, NCCL, access logs) at 25 %.
func soakScenario(span time.Duration) sim.Scenario {
	return sim.Scenario{
		Name: "soak", Seed: 8, Start: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Duration: span,
		Format: sim.FormatExport, Noise: 0.25,
		Services: []sim.Service{{
			Host: "gpu07", Unit: soakUnit, Engine: sim.SGLang,
			Ranks: []string{"DP0 TP0", "DP1 TP1", "DP2 TP2", "DP3 TP3"},
			Step:  sim.StepModel{A: 0.032, B: 2.5e-6},
			Workload: sim.Workload{Concurrency: 6, PromptMin: 200, PromptMax: 16000,
				OutputMin: 100, OutputMax: 4000, MaxContext: 30000},
			Acceptance: sim.Acceptance{DraftLen: 7, Phases: []sim.Phase{
				{Name: "easy", Mean: 6.5, Weight: 0.25}, {Name: "chat", Mean: 4.2, Weight: 0.45},
				{Name: "hard", Mean: 2.7, Weight: 0.30}}},
		}},
	}
}

// otherUnits write the host's unrelated noise; specwatch must not even read it.
var otherUnits = []struct{ unit, ident, format string }{
	{"nginx.service", "nginx", `10.0.%d.%d - - "POST /v1/chat/completions HTTP/1.1" 200 %d "-" "python-httpx/0.27"`},
	{"node-exporter.service", "node_exporter", `level=info ts=2026-11-01T00:00:00Z caller=collector.go:%d msg="collector succeeded" name=cpu duration_seconds=0.%03d`},
	{"nvidia-persistenced.service", "nvidia-persistenced", `device 0000:%02x:00.0 - persistence mode enabled, ECC errors %d, temp %d C`},
	{"cron.service", "CRON", `pam_unix(cron:session): session opened for user root(uid=0) by (uid=%d) job %d %d`},
}

// soakWriter replays the scenario into the journal.
type soakWriter struct {
	j       *testjournal.Journal
	speedup float64
	scen    sim.Scenario

	pause   sync.RWMutex // held for writing by a fault that needs the journal still
	decode  atomic.Int64 // engine decode lines taken by journald
	entries atomic.Int64 // every entry taken by journald
	retries atomic.Int64 // sends refused (journald down) and retried
	done    chan struct{}
	err     error
	stop    atomic.Bool
}

func startSoakWriter(t *testing.T, j *testjournal.Journal, scen sim.Scenario, speedup float64) *soakWriter {
	w := &soakWriter{j: j, speedup: speedup, scen: scen, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		w.err = w.run()
	}()
	t.Cleanup(func() { w.stop.Store(true); <-w.done })
	return w
}

// Pause stops the writer between two lines and returns the function that resumes it. Paused
// time does not count against the schedule: the replay continues at speedup× afterwards.
func (w *soakWriter) Pause() (resume func()) {
	w.pause.Lock()
	return w.pause.Unlock
}

// Wait returns when the whole scenario is written (or Cleanup stopped it).
func (w *soakWriter) Wait() error { <-w.done; return w.err }

func (w *soakWriter) run() error {
	pr, pw := io.Pipe()
	go func() {
		_, err := sim.Generate(w.scen, pw, nil)
		pw.CloseWithError(err)
	}()
	defer pr.Close()
	rd := ingest.NewReader(pr, ingest.ReaderOptions{})
	var e ingest.Entry
	var first int64 // µs, sim time of the first entry
	wallStart := time.Now()
	var paused time.Duration
	n := 0
	for !w.stop.Load() {
		err := rd.Next(&e)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("soak writer: reading the simulation: %w", err)
		}
		if first == 0 {
			first = e.Time
		}
		// Pace: sim time / speedup after the start, plus the time spent paused. Checked every
		// 64 lines so the pacing costs nothing at thousands of lines per second.
		if n++; n%64 == 0 {
			due := wallStart.Add(paused + time.Duration(float64(e.Time-first)*1e3/w.speedup))
			if d := time.Until(due); d > 0 {
				time.Sleep(d) // pacing the load, not waiting for a condition
			}
		}
		t0 := time.Now()
		w.pause.RLock()
		paused += time.Since(t0)
		w.send(string(e.Unit), "python3", e.Message)
		if bytes.Equal(e.Unit, []byte(soakUnit)) {
			if bytes.Contains(e.Message, []byte("Decode batch")) {
				w.decode.Add(1)
			}
			for i := range 3 {
				o := otherUnits[(n+i)%len(otherUnits)]
				w.send(o.unit, o.ident, fmt.Appendf(nil, o.format, n%250, i*7%250, n%9999))
			}
		}
		w.pause.RUnlock()
	}
	return nil
}

// send retries until journald takes the entry: while it restarts its socket refuses datagrams.
func (w *soakWriter) send(unit, ident string, msg []byte) {
	for w.j.Send(unit, ident, msg) != nil {
		w.retries.Add(1)
		if w.stop.Load() {
			return
		}
		time.Sleep(5 * time.Millisecond) // journald is restarting: retry, never drop
	}
	w.entries.Add(1)
}
