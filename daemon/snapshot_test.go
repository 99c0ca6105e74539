package daemon

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/pipeline"
	"github.com/specwatch/specwatch/sample"
	"github.com/specwatch/specwatch/sim"
)

// fedState is a pipeline.State whose model read d of one SGLang rank on each of hosts hosts,
// each its own simulation (seed), so that no two series are alike.
func fedState(t testing.TB, hosts int, d time.Duration) *pipeline.State {
	t.Helper()
	state := pipeline.NewState(pipeline.StateOptions{})
	pl := pipeline.New(state, pipeline.Options{})
	for h := range hosts {
		sc := sim.Scenario{Name: "steady", Seed: uint64(h + 1), Start: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), Duration: d,
			Format: sim.FormatRaw, Services: []sim.Service{{Host: fmt.Sprintf("gpu%03d", h), Unit: "sglang.service", Engine: sim.SGLang,
				Ranks:      []string{"TP0"},
				Step:       sim.StepModel{A: 0.040, B: 2e-6},
				Workload:   sim.Workload{Concurrency: 1, PromptMin: 200, PromptMax: 4000, OutputMin: 500, OutputMax: 3000},
				Acceptance: sim.Acceptance{DraftLen: 7, NoiseSD: 0.6, Phases: []sim.Phase{{Name: "chat", Mean: 4, Weight: 1}}}}}}
		var buf bytes.Buffer
		if _, err := sim.Generate(sc, &buf, nil); err != nil {
			t.Fatal(err)
		}
		p, st := parse.NewParser(parse.Options{}), parse.NewStream(parse.StreamOptions{Year: 2026, Location: time.UTC})
		s := bufio.NewScanner(&buf)
		var r parse.Record
		for s.Scan() {
			if p.Parse(s.Bytes(), &r) == sample.Matched {
				st.Resolve(0, nil, nil, &r)
				r.Sample.Host = []byte(fmt.Sprintf("gpu%03d", h))
				pl.ApplySample(sample.Matched, &r.Sample)
			}
		}
	}
	return state
}

// A snapshot is used only as it was saved: whole, and with the position files it is as of.
func TestRestoreSnapshot(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "journal.cursor"), []byte("s=abc;i=1\n"), 0o600)
	positions := []string{"journal.cursor", "files.positions"}
	state := fedState(t, 2, 2*time.Hour)
	want, _ := state.Report().Series, 0
	(&snapshots{dir: dir, positions: positions, log: zerolog.Nop()}).Save(state.AppendModel(nil))

	restored := pipeline.NewState(pipeline.StateOptions{})
	if !restoreSnapshot(dir, positions, restored, zerolog.Nop()) {
		t.Fatal("a snapshot saved at a clean stop was not restored")
	}
	if got := restored.Report().Series; len(got) != 2 || got[0].Samples != want[0].Samples || got[1].Verdict != want[1].Verdict {
		t.Errorf("restored %d series, want %d as saved", len(got), len(want))
	}

	// the cursor moved on after the snapshot (a kill): not used
	os.WriteFile(filepath.Join(dir, "journal.cursor"), []byte("s=abc;i=2\n"), 0o600)
	if restoreSnapshot(dir, positions, pipeline.NewState(pipeline.StateOptions{}), zerolog.Nop()) {
		t.Error("restored a snapshot behind the cursor")
	}
	os.WriteFile(filepath.Join(dir, "journal.cursor"), []byte("s=abc;i=1\n"), 0o600)
	// a file positions file appeared: the sources changed
	os.WriteFile(filepath.Join(dir, "files.positions"), []byte("x"), 0o600)
	if restoreSnapshot(dir, positions, pipeline.NewState(pipeline.StateOptions{}), zerolog.Nop()) {
		t.Error("restored a snapshot whose positions differ")
	}
	os.Remove(filepath.Join(dir, "files.positions"))

	// damaged anywhere: refused, and the model stays empty
	b, _ := os.ReadFile(filepath.Join(dir, ModelFile))
	for _, at := range []int{0, len(snapshotMagic), len(b) / 2, len(b) - 1} {
		d := bytes.Clone(b)
		d[at] ^= 0x40
		os.WriteFile(filepath.Join(dir, ModelFile), d, 0o600)
		st := pipeline.NewState(pipeline.StateOptions{})
		if restoreSnapshot(dir, positions, st, zerolog.Nop()) || len(st.Report().Series) != 0 {
			t.Errorf("a snapshot damaged at byte %d of %d was used", at, len(b))
		}
	}
	// other model options: refused
	os.WriteFile(filepath.Join(dir, ModelFile), b, 0o600)
	if restoreSnapshot(dir, positions, pipeline.NewState(pipeline.StateOptions{Model: model.Options{Window: 10}}), zerolog.Nop()) {
		t.Error("a snapshot of other options was used")
	}
}

// BenchmarkSnapshotFile is what a stop adds for 256 series with a full day each: compressing
// the state and writing the file (the state's copy is model's BenchmarkStateSave), and what a
// start adds: reading, checking and loading it.
func BenchmarkSnapshotFile(b *testing.B) {
	state := fedState(b, 256, 24*time.Hour)
	saved := state.AppendModel(nil)
	s := &snapshots{dir: b.TempDir(), log: zerolog.Nop()}
	var size int
	for b.Loop() {
		s.Save(saved)
		fi, err := os.Stat(filepath.Join(s.dir, ModelFile))
		if err != nil {
			b.Fatal(err)
		}
		size = int(fi.Size())
	}
	b.ReportMetric(float64(len(saved)), "state-bytes")
	b.ReportMetric(float64(size), "file-bytes")
}

func BenchmarkSnapshotRestore(b *testing.B) {
	s := &snapshots{dir: b.TempDir(), log: zerolog.Nop()}
	s.Save(fedState(b, 256, 24*time.Hour).AppendModel(nil))
	for b.Loop() {
		if !restoreSnapshot(s.dir, nil, pipeline.NewState(pipeline.StateOptions{}), zerolog.Nop()) {
			b.Fatal("not restored")
		}
	}
}
