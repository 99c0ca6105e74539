package analyze

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/sim"
)

// hostLog writes two hours of one host's SGLang log as the engine prints it (no host, no unit
// in its lines) at commit length mean, and returns its path.
func hostLog(t *testing.T, dir, name string, mean float64, seed uint64) string {
	t.Helper()
	sc := sim.Scenario{
		Name: name, Seed: seed, Start: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), Duration: 2 * time.Hour, Format: sim.FormatRaw,
		Services: []sim.Service{{
			Engine: sim.SGLang, Ranks: []string{"TP0"},
			Step:       sim.StepModel{A: 0.040, B: 2e-6},
			Workload:   sim.Workload{Concurrency: 1, PromptMin: 200, PromptMax: 4000, OutputMin: 500, OutputMax: 3000},
			Acceptance: sim.Acceptance{DraftLen: 4, NoiseSD: 0.3, Phases: []sim.Phase{{Name: "chat", Mean: mean, Weight: 1}}},
		}},
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := sim.Generate(sc, f, nil); err != nil {
		t.Fatal(err)
	}
	return path
}

// Issue 29, item 1: two hosts' logs whose lines name no host were one series (host ""), with
// a restart invented where the second file starts and a verdict from the two drafters mixed.
// Each file is its own series now (its unit its path, its rotated sibling joined to it), and
// --label names the host.
func TestTwoHostsAreTwoSeries(t *testing.T) {
	dir := t.TempDir()
	gpu01 := hostLog(t, dir, "gpu01-sglang.log", 3.2, 1)
	gpu02 := hostLog(t, dir, "gpu02-sglang.log", 2.2, 2)
	for _, labels := range []map[string]ingest.Identity{nil, {gpu01: {Host: "gpu01"}, gpu02: {Host: "gpu02"}}} {
		a := New(Options{Location: time.UTC, Labels: labels})
		if _, err := a.Files([]string{gpu01, gpu02}, func(err error) { t.Fatal(err) }); err != nil {
			t.Fatal(err)
		}
		rep := a.Report()
		if len(rep.Series) != 2 {
			t.Fatalf("labels %v: %d series, want one per host", labels, len(rep.Series))
		}
		for _, s := range rep.Series {
			want, host := 3.2, "gpu01"
			if s.Labels.Unit == gpu02 {
				want, host = 2.2, "gpu02"
			} else if s.Labels.Unit != gpu01 {
				t.Fatalf("series unit %q, want a file's path", s.Labels.Unit)
			}
			if labels == nil {
				host = ""
			}
			if s.Labels.Host != host {
				t.Errorf("%s: host %q, want %q", s.Labels.Unit, s.Labels.Host, host)
			}
			if s.CommitLen == nil || s.CommitLen.Mean < want*0.9 || s.CommitLen.Mean > want*1.1 {
				t.Errorf("%s: commit length %+v, want about %.1f (its own host's)", s.Labels.Unit, s.CommitLen, want)
			}
			for _, an := range s.Anomalies {
				if an.Kind == model.RestartRegression.String() || an.Kind == model.AcceptanceDrop.String() {
					t.Errorf("%s: %s: two hosts read one after the other are no restart and no drop (%+v)", s.Labels.Unit, an.Kind, an.Evidence)
				}
			}
			if len(s.Events) > 0 {
				t.Errorf("%s: events %+v", s.Labels.Unit, s.Events)
			}
		}
	}
	// A rotated sibling joins its live file.
	old := hostLog(t, dir, "gpu01-sglang.log.1", 3.2, 3)
	a := New(Options{Location: time.UTC})
	if _, err := a.Files([]string{old, gpu01}, func(err error) { t.Fatal(err) }); err != nil {
		t.Fatal(err)
	}
	if rep := a.Report(); len(rep.Series) != 1 || rep.Series[0].Labels.Unit != gpu01 {
		t.Fatalf("%d series (first %+v), want gpu01-sglang.log.1 joined to gpu01-sglang.log", len(rep.Series), rep.Series[0].Labels)
	}
}
