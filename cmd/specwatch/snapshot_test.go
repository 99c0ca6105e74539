package main

import (
	"math"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testjournal"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/sim"
)

// longDrift is the trace of issue 29: commit length drifting 3.07 → 2.1 over six hours from
// 3h, in nine hours of one SGLang rank, as journal entries (stamps moved so that the trace
// ends now) whose messages are the engine's lines.
func longDrift(t *testing.T) (entries []testjournal.Entry, onset time.Time, shift time.Duration) {
	t.Helper()
	start := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	sc := sim.Scenario{
		Name: "long-drift", Seed: 2, Start: start, Duration: 9 * time.Hour, Format: sim.FormatExport, Noise: 0.1,
		Services: []sim.Service{{
			Host: "gpu01", Unit: unit, Engine: sim.SGLang, Ranks: []string{"TP0"},
			Step:       sim.StepModel{A: 0.040, B: 2e-6},
			Workload:   sim.Workload{Concurrency: 1, PromptMin: 200, PromptMax: 4000, OutputMin: 500, OutputMax: 3000},
			Acceptance: sim.Acceptance{DraftLen: 4, NoiseSD: 0.4, Phases: []sim.Phase{{Name: "chat", Mean: 3.07, Weight: 1}}},
			Faults:     []sim.Fault{{Kind: sim.AcceptanceDrift, Start: 3 * time.Hour, Size: 1 - 2.1/3.07, Ramp: 6 * time.Hour}},
		}},
	}
	shift = time.Now().Add(-30 * time.Second).Truncate(time.Second).Sub(start.Add(9 * time.Hour))
	entries = simEntries(t, sc, shift)
	return entries, start.Add(3 * time.Hour).Add(shift), shift
}

// source is how a test daemon reads the trace: a journal directory, or a file of the engine's
// lines (the journal's entries' messages with their SGLang stamps), written once the daemon
// follows it (a file found at a first start is read from its end).
type source struct {
	name string
	args func(dir string) []string
	put  func(t *testing.T, dir, part string, entries []testjournal.Entry)
	// first says whether the first part is written before the first daemon starts.
	first bool
}

var sources = []source{
	{"journal", func(dir string) []string {
		return []string{"--journal.directory", dir, "--journal.unit", unit, "--journal.since", "2000-01-01"}
	},
		func(t *testing.T, dir, part string, entries []testjournal.Entry) {
			buildJournal(t, dir, part+".journal", entries)
		}, true},
	{"file", func(dir string) []string { return []string{"--file", filepath.Join(dir, "engine.log")} },
		func(t *testing.T, dir, _ string, entries []testjournal.Entry) {
			f, err := os.OpenFile(filepath.Join(dir, "engine.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for _, e := range entries {
				f.Write(append(e.Message, '\n'))
			}
		}, false},
}

// A restart continues from the model saved when the daemon stopped: with a clean restart 1, 2
// or 4 hours into a six-hour drift, journal or file, the report equals the uninterrupted one
// (the same samples and anomalies, the fit within 1 %) and acceptance_drop is raised no later.
// The per-series counters continue where they stopped; the others count each process's lines.
// Without the snapshot (model.snapshot: false) the journal's replay raised acceptance_drop
// 16 minutes late (restart 1 h after onset) or never (2 and 4 h), and files never.
func TestRunSnapshotContinuesTheDrift(t *testing.T) {
	if testing.Short() {
		t.Skip("runs twelve daemons")
	}
	entries, onset, shift := longDrift(t)
	for _, src := range sources {
		whole := t.TempDir()
		if src.first {
			src.put(t, whole, "a", entries)
		}
		d0 := startRun(t, append(src.args(whole), "--state.directory", t.TempDir())...)
		if !src.first {
			eventually(t, src.name+": the uninterrupted daemon ready", func() bool { return ready(d0.url("/-/ready")) })
			src.put(t, whole, "a", entries)
		}
		eventually(t, src.name+": the uninterrupted daemon read the trace", func() bool {
			r := d0.report(t)
			return ready(d0.url("/-/ready")) && len(r.Series) == 1 && r.Series[0].Samples > 0 && d0.counts(t).matched >= float64(len(entries))*0.8
		})
		want, all := d0.report(t), d0.counts(t)
		d0.stop()
		for _, after := range []time.Duration{time.Hour, 2 * time.Hour, 4 * time.Hour} {
			cut := onset.Add(after)
			half := 0
			for half < len(entries) && entries[half].Time.Before(cut) {
				half++
			}
			dir, state := t.TempDir(), t.TempDir()
			if src.first {
				src.put(t, dir, "a", entries[:half])
			}
			d1 := startRun(t, append(src.args(dir), "--state.directory", state)...)
			if !src.first {
				eventually(t, src.name+": the first daemon ready", func() bool { return ready(d1.url("/-/ready")) })
				src.put(t, dir, "a", entries[:half])
			}
			eventually(t, src.name+": the first daemon read the first part", func() bool {
				r := d1.report(t)
				return ready(d1.url("/-/ready")) && len(r.Series) == 1 && r.Series[0].Samples >= int64(half)*8/10
			})
			first := d1.counts(t)
			d1.cmd.Process.Signal(syscall.SIGTERM)
			if err := d1.wait(); err != nil {
				t.Fatalf("first daemon: %v\n%s", err, d1.logs())
			}
			if _, err := os.Stat(filepath.Join(state, "model.state")); err != nil {
				t.Fatalf("%s: no model saved at the stop: %v\n%s", src.name, err, d1.logs())
			}
			d2 := startRun(t, append(src.args(dir), "--state.directory", state)...)
			eventually(t, src.name+": the restarted daemon ready", func() bool { return ready(d2.url("/-/ready")) })
			src.put(t, dir, "b", entries[half:])
			eventually(t, src.name+": the restarted daemon read the rest", func() bool {
				r := d2.report(t)
				return len(r.Series) == 1 && r.Series[0].Last.Equal(want.Series[0].Last) && ready(d2.url("/-/ready"))
			})
			got, second := d2.report(t), d2.counts(t)
			d2.stop()
			if second.decode != all.decode || first.matched+second.matched != all.matched || first.steps+second.steps != all.steps {
				t.Errorf("%s, %s: counters first %+v, restarted %+v; uninterrupted %+v (samples_total continues, lines and steps count each process's)",
					src.name, after, first, second, all)
			}
			if !src.first {
				cut = cut.Add(-shift) // the file's lines keep their own stamps
			}
			compareReports(t, src.name+" restarted "+after.String()+" after onset", want, got, cut)
		}
	}
}

// compareReports checks a restarted daemon's report against the uninterrupted one's.
func compareReports(t *testing.T, name string, want, got model.Report, cut time.Time) {
	t.Helper()
	w, g := want.Series[0], got.Series[0]
	if w.Samples != g.Samples || !w.First.Equal(g.First) {
		t.Errorf("%s: %d samples from %v, uninterrupted %d from %v", name, g.Samples, g.First, w.Samples, w.First)
	}
	if len(w.Anomalies) != len(g.Anomalies) {
		t.Errorf("%s: anomalies %+v, uninterrupted %+v", name, g.Anomalies, w.Anomalies)
		return
	}
	for i := range w.Anomalies {
		if w.Anomalies[i].Kind != g.Anomalies[i].Kind || !w.Anomalies[i].Start.Equal(g.Anomalies[i].Start) {
			t.Errorf("%s: anomaly %d %s at %v, uninterrupted %s at %v", name, i, g.Anomalies[i].Kind, g.Anomalies[i].Start,
				w.Anomalies[i].Kind, w.Anomalies[i].Start)
		}
	}
	if w.StepModel == nil || g.StepModel == nil || math.Abs(g.StepModel.FixedMS/w.StepModel.FixedMS-1) > 0.01 ||
		math.Abs(g.StepModel.MSPer1kToken/w.StepModel.MSPer1kToken-1) > 0.01 {
		t.Errorf("%s: step model %+v, uninterrupted %+v", name, g.StepModel, w.StepModel)
	}
	wr, gr := firstRaise(want), firstRaise(got)
	t.Logf("%s: acceptance_drop raised %s after the restart (uninterrupted %s); %d samples, verdict %s",
		name, gr.Sub(cut).Round(time.Second), wr.Sub(cut).Round(time.Second), g.Samples, g.Verdict)
	if wr.IsZero() || gr.IsZero() || gr.After(wr.Add(10*time.Minute)) {
		t.Errorf("%s: acceptance_drop raised at %v, uninterrupted at %v", name, gr, wr)
	}
}
