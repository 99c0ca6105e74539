package scrape

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sample"
)

// recorded is one of testdata/llamacpp's scrapes of the real llama-server (README there).
func recorded(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "llamacpp", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// llamaRequest is one request as the engine's response states it: the truth.
type llamaRequest struct{ g, ms, drafted, accepted float64 }

// pooled is the requests' tokens over their decode time, as the counters add them up.
func pooled(rs ...llamaRequest) float64 {
	var g, ms float64
	for _, r := range rs {
		g, ms = g+r.g, ms+r.ms
	}
	return g / (ms / 1000)
}

// TestLlamaCppRecorded: the real engine's scrapes across requests. A scrape at which no
// request finished (mid-request, idle) gives no sample, not 0 tok/s; one after requests gives
// their tok/s by the engine's clock (Δtokens_predicted / Δtokens_predicted_seconds, what the
// responses say, not Δtokens / 10 s of wall time), accepted and drafted tokens, acceptance per
// position over the drafts, and never a commit length; a restart gives its event and no figure,
// and the next request is measured from it.
func TestLlamaCppRecorded(t *testing.T) {
	ep := newEndpoint(t)
	clk, sk := newFakeClock(), &sink{}
	src := newSource(t, clk, sk, nil, 0, Target{URL: ep.URL + "/metrics", Labels: map[string]string{"host": "gpu07", "unit": "llama-server.service"}})
	scrape := func(name string) []sample.Sample {
		t.Helper()
		ep.serve(recorded(t, name))
		if err := src.Scrape(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		clk.advance(10 * time.Second)
		got := sk.take()
		for _, s := range got {
			if s.Has(sample.Commit) || s.Has(sample.StepSeconds) || s.Has(sample.Running) {
				t.Errorf("%s: a commit length, step or running from llama.cpp's counters: %+v", name, s)
			}
			if string(s.Host) != "gpu07" || string(s.Unit) != "llama-server.service" || len(s.Rank) != 0 || s.Source != sample.SourceMetrics {
				t.Errorf("%s: key %s %s %q, source %v", name, s.Host, s.Unit, s.Rank, s.Source)
			}
		}
		return got
	}
	quiet := func(name string) {
		t.Helper()
		if got := scrape(name); len(got) != 0 {
			t.Errorf("%s: %d samples, want none: %+v", name, len(got), got)
		}
	}
	request := func(name string, rs ...llamaRequest) sample.Sample {
		t.Helper()
		s := one(t, scrape(name), sample.KindSpec)
		near(t, name+" tok/s", s.Value(sample.GenTPS), pooled(rs...), 1e-5)
		var acc, dr float64
		for _, r := range rs {
			acc, dr = acc+r.accepted, dr+r.drafted
		}
		if s.Value(sample.Accepted) != acc || s.Value(sample.Drafted) != dr {
			t.Errorf("%s: accepted %v of %v, want %v of %v", name, s.Value(sample.Accepted), s.Value(sample.Drafted), acc, dr)
		}
		near(t, name+" accept rate", s.Value(sample.AcceptRate), acc/dr, 1e-9)
		return s
	}

	quiet("draft-1-one-request") // the first scrape starts the interval
	quiet("draft-2-mid-request")
	s := request("draft-3-request-done", llamaRequest{300, 4797.384, 879, 187})
	// 111 drafts (146 − 35): positions 1-5 accepted 74, 74, 37, 1, 1 times (98 − 24, …)
	want := []float64{74.0 / 111, 74.0 / 111, 37.0 / 111, 1.0 / 111, 1.0 / 111, 0, 0, 0}
	if s.NPos != 8 || !closeAll(s.PerPos[:s.NPos], want) {
		t.Errorf("per position %v, want %v", s.PerPos[:s.NPos], want)
	}
	quiet("draft-4-idle")
	request("draft-5-two-requests", llamaRequest{64, 380.381, 169, 40}, llamaRequest{96, 819.169, 267, 60})
	request("draft-6-three-parallel", llamaRequest{64, 1246.908, 176, 40}, llamaRequest{64, 1246.039, 171, 40}, llamaRequest{64, 1060.233, 171, 40})

	got := scrape("draft-7-restarted")
	if len(got) != 1 || got[0].Kind != sample.KindEvent || got[0].Event != sample.EventRestart {
		t.Errorf("restart: %+v, want one restart event", got)
	}
	s = request("draft-8-after-restart", llamaRequest{80, 533.953, 223, 49})
	want = []float64{20.0 / 29, 20.0 / 29, 9.0 / 29, 0, 0, 0, 0, 0}
	if s.NPos != 8 || !closeAll(s.PerPos[:s.NPos], want) {
		t.Errorf("per position after the restart %v, want %v", s.PerPos[:s.NPos], want)
	}
}

// TestLlamaCppNgramRecorded: n-gram drafting drafts on 4 of 80 verify steps, so 1 + accepted /
// drafts is 44.5 where the engine committed 3.18 tokens per verify step; no commit length is
// given, and the 64 positions are one list when parse.MaxPerPosition holds them, else none
// (never a list cut short).
func TestLlamaCppNgramRecorded(t *testing.T) {
	ep := newEndpoint(t)
	clk, sk := newFakeClock(), &sink{}
	src := newSource(t, clk, sk, nil, 0, Target{URL: ep.URL})
	var got []sample.Sample
	for _, name := range []string{"ngram-1-start", "ngram-2-two-requests"} {
		ep.serve(recorded(t, name))
		if err := src.Scrape(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		clk.advance(every)
		got = sk.take()
	}
	s := one(t, got, sample.KindSpec)
	near(t, "tok/s", s.Value(sample.GenTPS), pooled(llamaRequest{128, 456.13, 80, 80}, llamaRequest{128, 421.57, 94, 94}), 1e-5)
	none(t, got, sample.Commit)
	if s.Value(sample.AcceptRate) != 1 {
		t.Errorf("accept rate %v, want 1 (174 of 174)", s.Value(sample.AcceptRate))
	}
	if sample.MaxPerPosition < 64 {
		if s.NPos != 0 {
			t.Errorf("%d positions of 64 with sample.MaxPerPosition %d: want none", s.NPos, sample.MaxPerPosition)
		}
		return
	}
	pp := s.PerPos[:s.NPos] // sliced: the array may be shorter than 64 when this compiles
	if len(pp) != 64 || pp[0] != 1 || pp[16] != 0.75 || pp[63] != 0.5 {
		t.Errorf("per position %v, want 1 (16 times), 0.75 (14), 0.5 (34)", pp)
	}
}

// TestLlamaCppCoarseCounters: past a million tokens llama-server prints its counters to six
// digits (1.23457e+06), so one request's increase is rounded by up to 10 tokens; the interval
// goes on until the increases are known to 1 % and then gives their figures, from its start.
func TestLlamaCppCoarseCounters(t *testing.T) {
	body := func(tokens, secs, drafts, drafted, accepted float64) string {
		var b strings.Builder
		for _, c := range []struct {
			name string
			v    float64
		}{{"tokens_predicted_total", tokens}, {"tokens_predicted_seconds_total", secs}, {"spec_decode_num_drafts_total", drafts},
			{"spec_decode_num_draft_tokens_total", drafted}, {"spec_decode_num_accepted_tokens_total", accepted}} {
			fmt.Fprintf(&b, "# TYPE llamacpp:%s counter\nllamacpp:%s %.6g\n", c.name, c.name, c.v)
		}
		return b.String()
	}
	ep := newEndpoint(t)
	clk, sk := newFakeClock(), &sink{}
	src := newSource(t, clk, sk, nil, 0, Target{URL: ep.URL})
	const t0, s0 = 1234567.0, 23456.7
	var got []sample.Sample
	n := 0
	for i := 0; len(got) == 0 && i < 40; i++ {
		// 96 tokens a request, 0.8 s each; drafts, drafted and accepted below a million
		ep.serve(body(t0+96*float64(i), s0+0.8*float64(i), 35*float64(i), 270*float64(i), 60*float64(i)))
		if err := src.Scrape(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		clk.advance(every)
		got, n = sk.take(), i
	}
	if len(got) == 0 {
		t.Fatal("no sample from 40 requests")
	}
	// Δtokens must reach 100 × (5 + 5) tokens (11 requests), Δseconds 100 × (0.05 + 0.05) s (13)
	if n != 13 {
		t.Errorf("the first sample after %d requests, want 13", n)
	}
	s := one(t, got, sample.KindSpec)
	printed := func(v float64) float64 { x, _ := strconv.ParseFloat(fmt.Sprintf("%.6g", v), 64); return x }
	tps := (printed(t0+96*float64(n)) - printed(t0)) / (printed(s0+0.8*float64(n)) - printed(s0))
	near(t, "tok/s over the whole interval", s.Value(sample.GenTPS), tps, 1e-9)
	near(t, "tok/s against the truth", s.Value(sample.GenTPS), 120, 0.01)
	if s.Value(sample.Accepted) != 60*float64(n) {
		t.Errorf("accepted %v, want %v: the interval runs from its start", s.Value(sample.Accepted), 60*n)
	}
}

func closeAll(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			return false
		}
	}
	return true
}

// TestPositionsWhole: a per-position list with a gap or a position past parse.MaxPerPosition is
// dropped, never cut or filled with zeros.
func TestPositionsWhole(t *testing.T) {
	for _, c := range []struct {
		what string
		pos  []int
		n    int
	}{{"whole", []int{0, 1, 2}, 3}, {"a gap", []int{0, 2}, 0}, {"twice", []int{0, 1, 1}, 0},
		{"past the bound", []int{0, sample.MaxPerPosition}, 0}} {
		var b strings.Builder
		b.WriteString("# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter\n")
		for _, p := range c.pos {
			fmt.Fprintf(&b, "vllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"0\",position=\"%d\"} 5\n", p)
		}
		var r Readings
		if err := Decode([]byte(b.String()), "", &r); err != nil {
			t.Fatal(err)
		}
		for _, rd := range r.ranks {
			if rd.nPos != c.n || (c.n == 0) != (rd.has&(1<<slotPerPos) == 0) {
				t.Errorf("%s: %d positions (has %v), want %d", c.what, rd.nPos, rd.has&(1<<slotPerPos) != 0, c.n)
			}
		}
	}
}

// TestLoopbackHost: a target on loopback is this machine, named as its logs name it.
func TestLoopbackHost(t *testing.T) {
	for _, c := range []struct{ url, label, want string }{
		{"http://127.0.0.1:8080/metrics", "", "gpu07"}, {"http://localhost:8080/metrics", "", "gpu07"},
		{"http://[::1]:8080/metrics", "", "gpu07"}, {"http://127.0.0.1:8080/metrics", "node-3", "node-3"},
		{"http://10.0.0.7:8080/metrics", "", "10.0.0.7"},
	} {
		tg := Target{URL: c.url, Interval: every, Timeout: time.Second}
		if c.label != "" {
			tg.Labels = map[string]string{"host": c.label}
		}
		s, err := New(Options{Targets: []Target{tg}, Sink: &sink{}, LocalHost: "gpu07"})
		if err != nil {
			t.Fatal(err)
		}
		if h := s.targets[0].host; h != c.want {
			t.Errorf("%s (host label %q): host %q, want %q", c.url, c.label, h, c.want)
		}
	}
}
