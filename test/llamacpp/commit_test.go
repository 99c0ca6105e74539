//go:build linux

package llamacpp

import (
	"bufio"
	"math"
	"os"
	"testing"
	"time"

	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sample"
)

// joined is one request as package parse joined it from the engine's lines.
type joined struct{ steps, commit, step float64 }

// parseRequests reads a plain capture through parse as the pipeline does and returns the
// requests it joined.
func parseRequests(t *testing.T, path string) []joined {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := parse.NewParser(parse.Options{})
	st := parse.NewStream(parse.StreamOptions{Location: time.UTC, Year: 2026})
	var out []joined
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	arrival := time.Now().UnixMicro()
	for sc.Scan() {
		var s parse.Record
		if p.Parse(sc.Bytes(), &s) != sample.Matched || !st.ResolveArrived(0, arrival, nil, nil, &s) {
			continue
		}
		if s.Event == sample.EventRequest {
			steps, _ := s.Get(sample.Steps)
			commit, _ := s.Get(sample.Commit)
			step, _ := s.Get(sample.StepSeconds)
			out = append(out, joined{steps, commit, step * 1000})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCommitLength: every request the engine served is one joined request whose commit
// length (per verify step, drafting or not) and step time are within 1 % of the engine's own
// figures, and analyze's pooled commit length is within 1 % of the engine's Σ tokens ÷ Σ steps.
func TestCommitLength(t *testing.T) {
	c := capture(t)
	for _, r := range c.runs() {
		if r != c.JSONL { // the --log-jsonl records are unwrapped by the pipeline, not by parse
			checkRequests(t, r, parseRequests(t, r.Log))
		}
		s := engineSeries(t, analyze(t, r.Log), r.Name)
		want := Pooled(r.Truth)
		if s.CommitLen == nil || relErr(s.CommitLen.PooledMean, want) > 0.01 {
			t.Errorf("%s: commit length %+v, engine's pooled %.4f: want within 1 %%", r.Name, s.CommitLen, want)
			continue
		}
		t.Logf("%s: pooled commit length %.4f, engine %.4f", r.Name, s.CommitLen.PooledMean, want)
	}
}

// checkRequests pairs each truth with the joined request of the same verify steps whose commit
// length is nearest; every truth must find one, and none may be left over.
func checkRequests(t *testing.T, r *Run, got []joined) {
	t.Helper()
	if len(got) != len(r.Truth) {
		t.Errorf("%s: %d joined requests, the engine served %d", r.Name, len(got), len(r.Truth))
	}
	used := make([]bool, len(got))
	var worstC, worstS float64
	for _, x := range r.Truth {
		best := -1
		for i, g := range got {
			if !used[i] && g.steps == float64(x.Steps()) &&
				(best < 0 || math.Abs(g.commit-x.Commit()) < math.Abs(got[best].commit-x.Commit())) {
				best = i
			}
		}
		if best < 0 {
			t.Errorf("%s: no joined request with %d verify steps for %v", r.Name, x.Steps(), x)
			continue
		}
		used[best] = true
		ec, es := relErr(got[best].commit, x.Commit()), relErr(got[best].step, x.StepMs())
		worstC, worstS = math.Max(worstC, ec), math.Max(worstS, es)
		if ec > 0.01 || es > 0.01 {
			t.Errorf("%s: joined commit %.4f step %.3f ms; engine %v", r.Name, got[best].commit, got[best].step, x)
		}
	}
	t.Logf("%s: %d requests, worst relative error: commit %.2g, step %.2g", r.Name, len(r.Truth), worstC, worstS)
}
