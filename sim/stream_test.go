package sim

import (
	"bytes"
	"crypto/sha256"
	"io"
	"sync"
	"testing"
	"time"
)

func digest(t testing.TB, s Scenario) [32]byte {
	t.Helper()
	h := sha256.New()
	if _, err := Generate(s, h, nil); err != nil {
		t.Fatal(err)
	}
	var d [32]byte
	copy(d[:], h.Sum(nil))
	return d
}

// TestDeterminism: the same scenario gives byte-identical output, also when generated
// concurrently (no shared state); another seed gives another stream.
func TestDeterminism(t *testing.T) {
	for _, s := range []Scenario{Mixed(7, 20000), Chatty(7, 20000), Demo(7), ContextGrowth(7), zoo(FormatExport, 0.3)} {
		want := digest(t, s)
		var wg sync.WaitGroup
		got := make([][32]byte, 4)
		for i := range got {
			wg.Go(func() { got[i] = digest(t, s) })
		}
		wg.Wait()
		for i, g := range got {
			if g != want {
				t.Errorf("%s: run %d differs", s.Name, i)
			}
		}
		s.Seed++
		if digest(t, s) == want {
			t.Errorf("%s: seeds %d and %d give the same output", s.Name, s.Seed-1, s.Seed)
		}
	}
}

// TestNoiseFraction checks the noise share of the records against Scenario.Noise.
func TestNoiseFraction(t *testing.T) {
	for _, f := range []float64{0, 0.1, 0.5, 0.7, 0.9} {
		s := Mixed(3, 40000)
		s.Noise = f
		sum, err := Generate(s, io.Discard, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := float64(sum.NoiseLines) / float64(sum.Lines)
		if sum.Lines != 40000 || sum.NoiseLines+sum.EngineLines != sum.Lines || got < f-0.01 || got > f+0.01 {
			t.Errorf("noise %.2f: %d lines, %d noise (%.3f), %d engine", f, sum.Lines, sum.NoiseLines, got, sum.EngineLines)
		}
	}
}

// TestTimeOrder: records are in receive-time order across services, and every series is
// represented in the summary.
func TestTimeOrder(t *testing.T) {
	s := Demo(2)
	s.Format = FormatJSON
	out, truths, sum := run(t, s)
	es := split(t, s.Format, out)
	for i := 1; i < len(es); i++ {
		if es[i].realtime < es[i-1].realtime {
			t.Fatalf("record %d at %d µs before record %d at %d µs", i+1, es[i].realtime, i, es[i-1].realtime)
		}
	}
	for _, tr := range truths {
		if es[tr.Record-1].realtime != tr.Logged.UnixMicro() || tr.Logged.Before(tr.Time) {
			t.Fatalf("record %d: journal time %d, truth logged %v engine %v", tr.Record,
				es[tr.Record-1].realtime, tr.Logged, tr.Time)
		}
	}
	if len(sum.Series) != 3 || sum.First.After(sum.Last) || sum.Last.Sub(sum.First) < 2*time.Hour {
		t.Errorf("summary: %+v", sum)
	}
	total := 0
	for _, sl := range sum.Series {
		total += sl.Lines
	}
	if total != sum.EngineLines || total != len(truths) {
		t.Errorf("series lines %d, engine lines %d, truths %d", total, sum.EngineLines, len(truths))
	}
}

// TestMaxLines: the run stops at exactly MaxLines, also inside a multi-line traceback.
func TestMaxLines(t *testing.T) {
	for _, n := range []int{1, 17, 999} {
		s := Mixed(1, n)
		var buf bytes.Buffer
		sum, err := Generate(s, &buf, nil)
		if err != nil || sum.Lines != n || bytes.Count(buf.Bytes(), []byte("\n")) != n {
			t.Errorf("MaxLines %d: %d lines, %d newlines, %v", n, sum.Lines, bytes.Count(buf.Bytes(), []byte("\n")), err)
		}
	}
}

// TestInvalid: bad scenarios are refused with an error, not a panic.
func TestInvalid(t *testing.T) {
	good := ContextGrowth(1)
	mutate := map[string]func(*Scenario){
		"no services":    func(s *Scenario) { s.Services = nil },
		"no duration":    func(s *Scenario) { s.Duration = 0 },
		"noise":          func(s *Scenario) { s.Noise = 1 },
		"engine":         func(s *Scenario) { s.Services[0].Engine = "tgi" },
		"style":          func(s *Scenario) { s.Services[0].Style = VLLMSpecGen2 },
		"python ranks":   func(s *Scenario) { s.Services[0].Prefix, s.Services[0].Ranks = PrefixPython, []string{"TP0", "TP1"} },
		"draft":          func(s *Scenario) { s.Services[0].Acceptance.DraftLen = 16 },
		"fault size":     func(s *Scenario) { s.Services[0].Faults = []Fault{{Kind: AcceptanceDrop, Size: 1.5}} },
		"fault kind":     func(s *Scenario) { s.Services[0].Faults = []Fault{{Kind: 99}} },
		"phase mean":     func(s *Scenario) { s.Services[0].Acceptance.Phases = []Phase{{Mean: 0.5}} },
		"step model":     func(s *Scenario) { s.Services[0].Step = StepModel{} },
		"script order":   func(s *Scenario) { s.Services[0].Workload.Script = []Request{{At: 2}, {At: 1}} },
		"format":         func(s *Scenario) { s.Format = 42 },
		"duplicate rank": func(s *Scenario) { s.Services[0].Ranks = []string{"TP0", "TP0"} },
	}
	for name, f := range mutate {
		s := good
		s.Services = append([]Service(nil), good.Services...)
		f(&s)
		if _, err := Generate(s, io.Discard, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Generate(good, io.Discard, nil); err != nil {
		t.Errorf("good scenario: %v", err)
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n--; w.n < 0 {
		return 0, io.ErrClosedPipe
	}
	return len(p), nil
}

func TestWriteError(t *testing.T) {
	if _, err := Generate(HealthyDay(1), &failWriter{n: 2}, nil); err != io.ErrClosedPipe {
		t.Errorf("write error: got %v", err)
	}
}
