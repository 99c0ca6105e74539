package sim

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"testing"
)

func num(t testing.TB, b []byte) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		t.Fatalf("not a number: %q", b)
	}
	return v
}

// fixed formats x as the engines round it.
func fixed(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }

var (
	reInt       = regexp.MustCompile(`(#running-req|#token|#full token|Running|Accepted|Drafted|Number of speculative tokens|Number of accepted tokens|Number of draft tokens|Number of emitted tokens): (\d+)`)
	rePositions = regexp.MustCompile(`Per-position acceptance rate: ([\d., ]+?)(, Avg|$)`)
	reMeanLen   = regexp.MustCompile(`Mean acceptance length: (\d+\.\d\d)`)
)

// ints returns the integer fields of a line by name.
func ints(t testing.TB, b []byte) map[string]float64 {
	out := map[string]float64{}
	for _, m := range reInt.FindAllSubmatch(b, -1) {
		out[string(m[1])] = num(t, m[2])
	}
	return out
}

// TestTruthConsistency checks each written figure against the ground truth and the engines' own
// arithmetic: SGLang throughput = commit × running / step except after idle, vLLM mean acceptance
// length = 1 + accepted / drafts, v0 emitted = accepted + drafts, llama.cpp rate = accepted / generated.
func TestTruthConsistency(t *testing.T) {
	s := zoo(FormatRaw, 0)
	out, truths, _ := run(t, s)
	lines := bytes.Split(out, []byte("\n"))
	draft := map[string]int{}
	for _, sv := range s.Services {
		draft[sv.Unit] = sv.Acceptance.DraftLen
	}
	counts := map[LineKind]int{}
	afterIdle := 0
	for _, tr := range truths {
		b := body(t, tr.Series.Engine, lines[tr.Record-1])
		m := match(tr.Line, b)
		where := fmt.Sprintf("record %d %s/%s %q", tr.Record, tr.Series.Unit, tr.Series.Rank, b)
		in := ints(t, b)
		k := float64(draft[tr.Series.Unit])
		counts[tr.Line]++
		model := tr.CommitLen * float64(tr.Running) / tr.StepSeconds
		switch tr.Line {
		case LineDecode:
			if in["#running-req"] != float64(tr.Running) || in["#token"]+in["#full token"] != float64(tr.Context) {
				t.Fatalf("%s: running/context differ from truth %d/%d", where, tr.Running, tr.Context)
			}
			tps := string(m[len(m)-2])
			if bytes.HasPrefix(b, []byte("Decode batch.")) {
				tps = string(m[6])
			}
			if tps != fixed(tr.TPS, 2) {
				t.Fatalf("%s: throughput %s, truth %.4f", where, tps, tr.TPS)
			}
			if k > 0 && !bytes.Contains(b, []byte("accept len: "+fixed(tr.CommitLen, 2)+",")) {
				t.Fatalf("%s: accept len is not the truth's %.4f", where, tr.CommitLen)
			}
			if tr.AfterIdle {
				afterIdle++
				if tr.TPS >= model {
					t.Fatalf("%s: after idle, yet throughput %.2f ≥ commit×running/step %.2f", where, tr.TPS, model)
				}
			} else if math.Abs(tr.TPS/model-1) > 1e-9 {
				t.Fatalf("%s: throughput %.4f, commit×running/step %.4f", where, tr.TPS, model)
			}
		case LineCustom:
			if string(m[1]) != fixed(tr.CommitLen, 2) || math.Abs(num(t, m[2])-(tr.CommitLen-1)) > 0.0051 {
				t.Fatalf("%s: commit/depth differ from truth %.4f", where, tr.CommitLen)
			}
			step := num(t, m[3])
			if bytes.Contains(b, []byte("step_time=")) {
				step *= 1000
			}
			if math.Abs(step-tr.StepSeconds*1000) > 0.051 {
				t.Fatalf("%s: step differs from truth %.5f s", where, tr.StepSeconds)
			}
		case LineProfile:
			if string(m[2]) != fixed(tr.StepSeconds*1000, 2) || string(m[3]) != fixed(tr.CommitLen, 2) {
				t.Fatalf("%s: total_ms/accept_mean differ from truth", where)
			}
		case LineStats:
			if tr.Running == 0 {
				if tr.TPS != 0 {
					t.Fatalf("%s: idle line with throughput", where)
				}
				continue
			}
			if in["Running"] != float64(tr.Running) {
				t.Fatalf("%s: running differs from truth %d", where, tr.Running)
			}
			if !tr.AfterIdle && math.Abs(tr.TPS/model-1) > 0.02 {
				t.Fatalf("%s: throughput %.2f, commit×running/step %.2f", where, tr.TPS, model)
			}
		case LineSpec:
			if bytes.HasPrefix(b, []byte("Speculative metrics")) {
				acc, dr, em := in["Number of accepted tokens"], in["Number of draft tokens"], in["Number of emitted tokens"]
				if em != acc+dr/k || in["Number of speculative tokens"] != k {
					t.Fatalf("%s: emitted ≠ accepted + draft tokens / k", where)
				}
				continue
			}
			acc, dr := in["Accepted"], in["Drafted"]
			if acc > dr || math.Mod(dr, k) != 0 {
				t.Fatalf("%s: accepted > drafted, or drafted not a multiple of %v", where, k)
			}
			if fixed(1+acc/(dr/k), 2) != fixed(tr.CommitLen, 2) {
				t.Fatalf("%s: 1 + accepted/drafts = %.4f, truth %.4f", where, 1+acc/(dr/k), tr.CommitLen)
			}
			if mm := reMeanLen.FindSubmatch(b); mm != nil && string(mm[1]) != fixed(1+acc/(dr/k), 2) {
				t.Fatalf("%s: mean acceptance length is not 1 + accepted / drafts", where)
			}
			if pm := rePositions.FindSubmatch(b); pm != nil {
				sum := 0.0
				for _, p := range bytes.Split(pm[1], []byte(", ")) {
					sum += num(t, p)
				}
				if math.Abs(sum-acc/(dr/k)) > 0.0005*k {
					t.Fatalf("%s: per-position rates sum to %.4f, accepted/drafts %.4f", where, sum, acc/(dr/k))
				}
			}
		case LineDraft:
			acc, gen := num(t, m[2]), num(t, m[3])
			if string(m[1]) != fixed(acc/gen, 5) {
				t.Fatalf("%s: rate is not accepted / generated", where)
			}
		}
	}
	for _, k := range []LineKind{LineDecode, LineCustom, LineProfile, LineStats, LineSpec, LineDraft, LinePrefill, LineRetract} {
		if counts[k] == 0 {
			t.Errorf("no %v lines checked", k)
		}
	}
	if afterIdle == 0 {
		t.Errorf("no after-idle decode line checked")
	}
}

// TestAfterIdle checks SGLang's artefact: after a long idle gap the first decode line divides a
// few dozen tokens by the whole gap.
func TestAfterIdle(t *testing.T) {
	s := ContextGrowth(1)
	s.Duration = 3 * 3600e9
	s.Services[0].Workload.Script = []Request{{At: 1e9, Prompt: 13, Output: 400}, {At: 3600e9, Prompt: 13, Output: 400}}
	_, truths, _ := run(t, s)
	var idle []Truth
	for _, tr := range truths {
		if tr.Line == LineDecode && tr.AfterIdle {
			idle = append(idle, tr)
		}
	}
	if len(idle) != 2 {
		t.Fatalf("%d after-idle lines, want 2", len(idle))
	}
	if tps := idle[1].TPS; tps > 0.2 || fixed(tps, 2) == "0.00" {
		t.Errorf("first line after an hour idle shows %.3f tok/s, want a tiny positive figure", tps)
	}
}

// TestStepModel checks that the step times follow A + B·context within the configured noise.
func TestStepModel(t *testing.T) {
	s := ContextGrowth(3)
	_, truths, _ := run(t, s)
	m := s.Services[0].Step
	first, last := Truth{}, Truth{}
	for _, tr := range truths {
		if tr.Line != LineDecode {
			continue
		}
		want := m.A + m.B*float64(tr.Context)
		if r := tr.StepSeconds / want; r < 0.95 || r > 1.05 {
			t.Fatalf("step %.4f s at %d tokens, model %.4f s", tr.StepSeconds, tr.Context, want)
		}
		if first.Line == 0 {
			first = tr
		}
		last = tr
	}
	if first.CommitLen < 7 || last.CommitLen > 3.2 || last.Context < 5300 || last.Context > 5700 {
		t.Errorf("context growth: commit %.2f → %.2f, context %d → %d", first.CommitLen, last.CommitLen,
			first.Context, last.Context)
	}
	if last.StepSeconds < 0.135 || last.StepSeconds > 0.155 {
		t.Errorf("step at %d tokens is %.1f ms, want ~144 ms", last.Context, last.StepSeconds*1000)
	}
}
