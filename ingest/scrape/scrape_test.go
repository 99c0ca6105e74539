package scrape

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/specwatch/specwatch/sample"
)

const every = 5 * time.Second

func newSource(t *testing.T, clk *fakeClock, sk Sink, m *Metrics, max int64, targets ...Target) *Source {
	t.Helper()
	for i := range targets {
		if targets[i].Interval == 0 {
			targets[i].Interval = every
		}
		if targets[i].Timeout == 0 {
			targets[i].Timeout = 2 * time.Second
		}
	}
	s, err := New(Options{Targets: targets, Sink: sk, Metrics: m, Clock: clk, MaxBodyBytes: max})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func near(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*math.Abs(want) {
		t.Errorf("%s = %v, want %v (±%.2g %%)", what, got, want, rel*100)
	}
}

// TestVLLMCounters: commit length from vLLM's counters matches the counters' own ratio to
// 0.5 %, per interval, with per-position acceptance, token rates and the engine line's gauges;
// a reset (engine restart) starts a new interval and a stall yields no commit length at all.
func TestVLLMCounters(t *testing.T) {
	ep := newEndpoint(t)
	clk, sk := newFakeClock(), &sink{}
	reg := prometheus.NewRegistry()
	src := newSource(t, clk, sk, NewMetrics(reg), 0, Target{URL: ep.URL + "/metrics", Labels: map[string]string{"unit": "vllm.service"}})
	ctx := context.Background()
	scrape := func(v vllm) []sample.Sample {
		t.Helper()
		ep.serve(v.text())
		if err := src.Scrape(ctx, 0); err != nil {
			t.Fatal(err)
		}
		clk.advance(every)
		return sk.take()
	}
	v := vllm{drafts: 10000, draftTokens: 30000, accepted: 17000, perPos: []float64{8000, 5500, 3500}, running: 8, genTok: 100000, kvUsage: 0.125}
	first := scrape(v)
	none(t, first, sample.Commit) // no interval yet
	d := one(t, first, sample.KindDecode)
	if got, _ := d.Get(sample.Running); got != 8 || string(d.Rank) != "Engine 000" || string(d.Host) != "127.0.0.1" || string(d.Unit) != "vllm.service" || d.Engine != sample.EngineVLLM {
		t.Fatalf("decode sample: running %v, rank %q, host %q, unit %q, engine %s", got, d.Rank, d.Host, d.Unit, d.Engine)
	}

	// the interval: 1,234 drafts, 2,345 of 3,702 drafted tokens accepted
	v.drafts, v.draftTokens, v.accepted = 11234, 33702, 19345
	v.perPos = []float64{8000 + 1000, 5500 + 800, 3500 + 545}
	v.genTok += 4000
	got := scrape(v)
	s := one(t, got, sample.KindSpec)
	commit, _ := s.Get(sample.Commit)
	near(t, "commit length", commit, 1+2345.0/1234, 0.005)
	if a, _ := s.Get(sample.Accepted); a != 2345 {
		t.Errorf("accepted = %v, want 2345", a)
	}
	if dr, _ := s.Get(sample.Drafted); dr != 3702 {
		t.Errorf("drafted = %v, want 3702", dr)
	}
	near(t, "accepted tokens/s", s.Value(sample.AcceptedTPS), 2345.0/5, 1e-9)
	if s.NPos != 3 {
		t.Fatalf("positions = %d, want 3", s.NPos)
	}
	for i, want := range []float64{1000.0 / 1234, 800.0 / 1234, 545.0 / 1234} {
		near(t, "per-position acceptance", s.PerPos[i], want, 1e-9)
	}
	dec := one(t, got, sample.KindDecode)
	near(t, "generation tokens/s", dec.Value(sample.GenTPS), 4000.0/5, 1e-9)
	// the sum of per-position acceptance is commit length − 1, as in vLLM's own log line
	near(t, "Σ per position", s.PerPos[0]+s.PerPos[1]+s.PerPos[2], commit-1, 1e-9)

	// stall: the counters do not move; gauges still come, commit length does not
	got = scrape(v)
	none(t, got, sample.Commit)
	one(t, got, sample.KindDecode)

	// restart: the counters start again from small values; no negative, no spike
	restarted := vllm{drafts: 50, draftTokens: 150, accepted: 90, perPos: []float64{40, 30, 20}, running: 1, genTok: 200}
	got = scrape(restarted)
	none(t, got, sample.Commit)
	none(t, got, sample.GenTPS)
	if ev := one(t, got, sample.KindEvent); ev.Event != sample.EventRestart || ev.Source != sample.SourceMetrics || string(ev.Rank) != "Engine 000" {
		t.Errorf("restart event: %+v", ev)
	}
	if n := testutil.ToFloat64(src.o.Metrics.resets.WithLabelValues(ep.URL + "/metrics")); n != 1 {
		t.Errorf("counter resets = %v, want 1", n)
	}
	// and the next interval is measured from the restart
	restarted.drafts, restarted.accepted, restarted.draftTokens = 150, 290, 450
	s = one(t, scrape(restarted), sample.KindSpec)
	near(t, "commit length after the restart", s.Value(sample.Commit), 1+200.0/100, 0.005)
}

// TestOpenMetrics: the same counters served as OpenMetrics (prometheus_client's other format:
// _total on the sample, _created inside the family, # EOF).
func TestOpenMetrics(t *testing.T) {
	ep := newEndpoint(t)
	ep.ctype = "application/openmetrics-text; version=1.0.0; charset=utf-8"
	clk, sk := newFakeClock(), &sink{}
	src := newSource(t, clk, sk, nil, 0, Target{URL: ep.URL})
	for _, v := range []vllm{{engine: 1, drafts: 100, draftTokens: 300, accepted: 150, running: 3}, {engine: 1, drafts: 200, draftTokens: 600, accepted: 400, running: 4}} {
		ep.serve(v.openMetrics())
		if err := src.Scrape(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		clk.advance(every)
	}
	s := one(t, sk.take(), sample.KindSpec)
	near(t, "commit length", s.Value(sample.Commit), 1+250.0/100, 0.005)
	if string(s.Rank) != "Engine 001" {
		t.Errorf("rank %q, want Engine 001", s.Rank)
	}
}

// TestRanks: one series per engine rank — vLLM's engine label, SGLang's dp_rank/tp_rank.
func TestRanks(t *testing.T) {
	ep := newEndpoint(t)
	clk, sk := newFakeClock(), &sink{}
	src := newSource(t, clk, sk, nil, 0, Target{URL: ep.URL, Labels: map[string]string{"host": "gpu-07"}})
	ep.serve(sglangText(sglangRank{0, 0, 3.25, 0.56, 12, 840}, sglangRank{1, 1, 2.5, 0.38, 10, 600}))
	if err := src.Scrape(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	got := sk.take()
	if len(got) != 2 {
		t.Fatalf("want a sample per rank, got %d", len(got))
	}
	byRank := map[string]sample.Sample{}
	for _, s := range got {
		byRank[string(s.Rank)] = s
		if string(s.Host) != "gpu-07" || s.Engine != sample.EngineSGLang || s.Kind != sample.KindDecode {
			t.Errorf("sample %q: host %q engine %s kind %s", s.Rank, s.Host, s.Engine, s.Kind)
		}
	}
	for rank, want := range map[string][3]float64{"DP0 TP0": {3.25, 12, 840}, "DP1 TP1": {2.5, 10, 600}} {
		s, ok := byRank[rank]
		if !ok {
			t.Fatalf("no sample for %q: %v", rank, byRank)
		}
		if s.Value(sample.Commit) != want[0] || s.Value(sample.Running) != want[1] || s.Value(sample.GenTPS) != want[2] {
			t.Errorf("%s: commit %v running %v gen %v, want %v", rank, s.Value(sample.Commit), s.Value(sample.Running), s.Value(sample.GenTPS), want)
		}
	}
}

// TestLlamaCppAndTRTLLM: llama.cpp's unlabelled counters (six significant digits) and
// TensorRT-LLM's token counters with its acceptance-length gauge.
func TestLlamaCppAndTRTLLM(t *testing.T) {
	lc, tr := newEndpoint(t), newEndpoint(t)
	clk, sk := newFakeClock(), &sink{}
	src := newSource(t, clk, sk, nil, 0, Target{URL: lc.URL}, Target{URL: tr.URL})
	step := func(lcBody, trBody string) []sample.Sample {
		lc.serve(lcBody)
		tr.serve(trBody)
		for i := range 2 {
			if err := src.Scrape(context.Background(), i); err != nil {
				t.Fatal(err)
			}
		}
		clk.advance(every)
		return sk.take()
	}
	step(llamaCppText(4000, 16000, 6000, 20000, 100, []float64{3000, 2000, 700, 300}), trtllmText(9000, 5000, 2.1))
	got := step(llamaCppText(4500, 18000, 6900, 21400, 110, []float64{3350, 2300, 850, 400}), trtllmText(9900, 5600, 2.2))
	var l, r sample.Sample
	for _, s := range got {
		switch s.Engine {
		case sample.EngineLlamaCpp:
			l = s
		case sample.EngineTRTLLM:
			r = s
		}
	}
	if l.Kind != sample.KindSpec || l.Has(sample.Commit) || l.Has(sample.Running) {
		t.Errorf("llama.cpp: a %s sample, commit %v, running %v: want a spec sample without either", l.Kind, l.Has(sample.Commit), l.Has(sample.Running))
	}
	near(t, "llama.cpp generation tokens/s (engine time)", l.Value(sample.GenTPS), 1400.0/10, 1e-9)
	near(t, "llama.cpp accept rate", l.Value(sample.AcceptRate), 900.0/2000, 1e-9)
	if l.NPos != 4 || math.Abs(l.PerPos[0]-350.0/500) > 1e-9 || string(l.Rank) != "" {
		t.Errorf("llama.cpp per position: %d %v, rank %q", l.NPos, l.PerPos[:l.NPos], l.Rank)
	}
	if r.Value(sample.Commit) != 2.2 || r.Value(sample.Accepted) != 600 || r.Value(sample.Drafted) != 900 {
		t.Errorf("TensorRT-LLM: commit %v accepted %v drafted %v", r.Value(sample.Commit), r.Value(sample.Accepted), r.Value(sample.Drafted))
	}
}

// TestFailures: down, slow past the timeout, enormous past the bound, an error status and
// garbage each fail that scrape with its reason, quickly, and the target recovers.
func TestFailures(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-block:
		}
	}))
	defer slow.Close()
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		line := []byte("vllm:num_requests_running{engine=\"0\"} 1.0\n")
		for range 10000 { // 440 kB, past the 64 kB bound
			_, _ = w.Write(line)
		}
	}))
	defer huge.Close()
	status := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", http.StatusServiceUnavailable) }))
	defer status.Close()
	garbage := newEndpoint(t)
	garbage.serve("vllm:num_requests_running{engine=\"0\" 1.0\n\x00\xff{{{\n")
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()

	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	clk, sk := newFakeClock(), &sink{}
	src := newSource(t, clk, sk, m, 64<<10,
		Target{URL: downURL}, Target{URL: slow.URL, Timeout: 100 * time.Millisecond}, Target{URL: huge.URL},
		Target{URL: status.URL}, Target{URL: garbage.URL})
	for i, want := range []string{reasonHTTP, reasonTimeout, reasonSize, reasonHTTP, reasonFormat} {
		start := time.Now()
		err := src.Scrape(context.Background(), i)
		if err == nil {
			t.Fatalf("target %d: no error", i)
		}
		if r := reason(err); r != want {
			t.Errorf("target %d: reason %s (%v), want %s", i, r, err, want)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("target %d: the failure took %v", i, el)
		}
		name := src.targets[i].name
		if testutil.ToFloat64(m.up.WithLabelValues(name)) != 0 || testutil.ToFloat64(m.failures.WithLabelValues(name, want)) < 1 {
			t.Errorf("target %d: up or failures{reason=%s} not recorded", i, want)
		}
	}
	if sk.len() != 0 {
		t.Errorf("failed scrapes applied %d samples", sk.len())
	}
	garbage.serve(vllm{drafts: 1, draftTokens: 1, accepted: 1}.text())
	if err := src.Scrape(context.Background(), 4); err != nil {
		t.Fatal(err)
	}
	if testutil.ToFloat64(m.up.WithLabelValues(src.targets[4].name)) != 1 {
		t.Error("up not 1 after a good scrape")
	}
	if n, err := testutil.GatherAndCount(reg, "specwatch_scrape_up", "specwatch_scrape_failures_total"); err != nil || n != 5+5*4 {
		t.Errorf("families: %d series, %v", n, err)
	}
}

// TestRunIsolation: under Run, a target that never answers does not hold up another one, and
// Run returns once ctx is cancelled, the hung request included.
func TestRunIsolation(t *testing.T) {
	// Buffered: the first request may arrive before the test waits for it, and the handler's
	// send must not drop it (the test then waited forever).
	hung := make(chan struct{}, 1)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case hung <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	}))
	defer slow.Close()
	fast := newEndpoint(t)
	fast.serve(sglangText(sglangRank{0, 0, 3, 0.5, 4, 100}))
	clk, sk := newFakeClock(), &sink{}
	src := newSource(t, clk, sk, nil, 0, Target{URL: slow.URL, Timeout: time.Hour}, Target{URL: fast.URL})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- src.Run(ctx) }()
	tickers := []chan time.Time{<-clk.tickers, <-clk.tickers}
	<-hung // the slow target's first request is in flight, and stays there
	// each target has its own ticker; whichever is the fast one takes these ticks
	for n := 1; n <= 5; n++ {
		for sk.len() < n {
			select {
			case tickers[0] <- clk.Now():
			case tickers[1] <- clk.Now():
			case err := <-done:
				t.Fatalf("Run returned early: %v", err)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

func TestNewRefuses(t *testing.T) {
	for _, tg := range []Target{
		{URL: "ftp://127.0.0.1/metrics", Interval: time.Second, Timeout: time.Second},
		{URL: "http:///metrics", Interval: time.Second, Timeout: time.Second},
		{URL: "http://127.0.0.1/metrics", Timeout: time.Second},
		{URL: "http://127.0.0.1/metrics", Interval: time.Second},
	} {
		if _, err := New(Options{Targets: []Target{tg}, Sink: &sink{}}); err == nil {
			t.Errorf("%+v accepted", tg)
		}
	}
	if _, err := New(Options{}); err == nil {
		t.Error("no sink accepted")
	}
}

// TestRedactedTargetLabel: credentials in a URL never reach the target label: neither the
// user nor the password, nor a token in the query (issue 27, item 17: url.URL.Redacted kept
// "admin:xxxxx@…?access_token=SECRET").
func TestRedactedTargetLabel(t *testing.T) {
	src, err := New(Options{Targets: []Target{{URL: "http://admin:secret@127.0.0.1:1/metrics?access_token=SECRET", Interval: time.Second, Timeout: time.Second}}, Sink: &sink{}})
	if err != nil {
		t.Fatal(err)
	}
	n := src.targets[0].name
	for _, s := range []string{"admin", "secret", "SECRET"} {
		if strings.Contains(n, s) {
			t.Errorf("target label %q shows %q", n, s)
		}
	}
	if n != "http://127.0.0.1:1/metrics?access_token=xxxxx" {
		t.Errorf("target label %q", n)
	}
}

// TestDecodeSkips: _created families, unknown families and non-finite values are skipped, and
// a rank flood stops at MaxRanks.
func TestDecodeSkips(t *testing.T) {
	var r Readings
	body := "# TYPE vllm:spec_decode_num_drafts_created gauge\nvllm:spec_decode_num_drafts_created{engine=\"0\"} 1.7e9\n" +
		"# TYPE other_total counter\nother_total 5\n" +
		"# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\"} NaN\n"
	if err := Decode([]byte(body), "", &r); err != nil {
		t.Fatal(err)
	}
	if r.Len() != 0 || r.Dropped != 1 {
		t.Errorf("ranks %d dropped %d, want 0 and 1", r.Len(), r.Dropped)
	}
	var b strings.Builder
	b.WriteString("# TYPE vllm:num_requests_running gauge\n")
	for i := range 1000 {
		b.WriteString("vllm:num_requests_running{engine=\"" + strconv.Itoa(i) + "\"} 1\n")
	}
	if err := Decode([]byte(b.String()), "", &r); err != nil {
		t.Fatal(err)
	}
	if r.Len() != MaxRanks || r.Dropped != 1000-MaxRanks {
		t.Errorf("ranks %d dropped %d", r.Len(), r.Dropped)
	}
	if err := Decode([]byte("{{{"), "", &r); !errors.Is(err, ErrFormat) {
		t.Errorf("garbage: %v", err)
	}
}

// TestOpenMetricsRewrite: unread families go, the OpenMetrics-only syntax is rewritten, quoted
// '#' kept, and a
// 100 kB OpenMetrics body decodes in milliseconds, not the seconds of a general ABNF parser.
func TestOpenMetricsRewrite(t *testing.T) {
	var b bytes.Buffer
	in := "# TYPE sglang:token_usage info\n# UNIT sglang:token_usage ratio\n" +
		"sglang:token_usage{x=\"1 # 2\"} 1 # {trace_id=\"k\"} 1.0 1.5\nother 3\n  sglang:gen_throughput 2\n# EOF\n"
	if err := filterExposition([]byte(in), true, &b); err != nil {
		t.Fatal(err)
	}
	if want := "# TYPE sglang:token_usage untyped\nsglang:token_usage{x=\"1 # 2\"} 1\nsglang:gen_throughput 2\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	var body strings.Builder
	for _, name := range []string{"vllm:spec_decode_num_drafts", "vllm:spec_decode_num_draft_tokens", "vllm:spec_decode_num_accepted_tokens"} {
		body.WriteString("# HELP " + name + " x.\n# TYPE " + name + " counter\n")
		for i := 0; i < 700; i++ {
			l := `{engine="` + strconv.Itoa(i) + `",` + vllmModel + `}`
			body.WriteString(name + "_total" + l + " 1234.0\n" + name + "_created" + l + " 1.7331840123456e+09\n")
		}
	}
	body.WriteString("# EOF\n")
	var r Readings
	start := time.Now()
	if err := Decode([]byte(body.String()), "application/openmetrics-text; version=1.0.0; charset=utf-8", &r); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > time.Second || body.Len() < 100<<10 {
		t.Errorf("%d bytes of OpenMetrics took %v", body.Len(), el)
	}
	if r.Len() != MaxRanks {
		t.Errorf("%d ranks", r.Len())
	}
}

// TestAuthAndTLS: a bearer token and basic auth are sent, over https with the target's own
// roots; a wrong token fails the scrape as http.
func TestAuthAndTLS(t *testing.T) {
	body := sglangText(sglangRank{0, 0, 3, 0.5, 4, 100})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, basic := r.BasicAuth()
		if r.Header.Get("Authorization") != "Bearer s3cret" && !(basic && u == "prom" && p == "pw") {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	tlsc := &tls.Config{RootCAs: roots}
	clk, sk := newFakeClock(), &sink{}
	src := newSource(t, clk, sk, nil, 0,
		Target{URL: srv.URL, BearerToken: "s3cret", TLS: tlsc},
		Target{URL: srv.URL + "/b", Username: "prom", Password: "pw", TLS: tlsc},
		Target{URL: srv.URL + "/c", BearerToken: "wrong", TLS: tlsc},
		Target{URL: srv.URL + "/d", BearerToken: "s3cret"}) // the system roots do not know the test CA
	for i, ok := range []bool{true, true, false, false} {
		err := src.Scrape(context.Background(), i)
		if (err == nil) != ok {
			t.Errorf("target %d: err %v, want success %v", i, err, ok)
		}
		if err != nil && reason(err) != reasonHTTP {
			t.Errorf("target %d: reason %s", i, reason(err))
		}
	}
	if sk.len() != 2 {
		t.Errorf("%d samples, want one per good target", sk.len())
	}
}
