package scrape

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sample"
)

// The expositions below are written the way each engine's code writes them: Python's
// prometheus_client for vLLM, SGLang and TensorRT-LLM (a counter's family named with _total,
// then its _created family as a gauge; floats printed with ".0"), llama.cpp's own stream
// (C++ default float formatting, no labels but position).

const vllmModel = `model_name="meta-llama/Llama-3.1-8B-Instruct"`

// vllm is one vLLM v1 engine's counters and gauges at a scrape.
type vllm struct {
	engine                            int
	drafts, draftTokens, accepted     float64
	perPos                            []float64
	running, waiting, kvUsage, genTok float64
}

func (v vllm) text() string {
	var b strings.Builder
	l := fmt.Sprintf(`engine="%d",%s`, v.engine, vllmModel)
	gauge := func(name, help string, val float64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n%s{%s} %s\n", name, help, name, name, l, pyFloat(val))
	}
	counter := func(name, help string, val float64) {
		fmt.Fprintf(&b, "# HELP %s_total %s\n# TYPE %s_total counter\n%s_total{%s} %s\n", name, help, name, name, l, pyFloat(val))
		fmt.Fprintf(&b, "# HELP %s_created %s\n# TYPE %s_created gauge\n%s_created{%s} 1.7331840123456e+09\n", name, help, name, name, l)
	}
	gauge("vllm:num_requests_running", "Number of requests in model execution batches.", v.running)
	gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", v.waiting)
	gauge("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", v.kvUsage)
	gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", v.kvUsage)
	counter("vllm:generation_tokens", "Number of generation tokens processed.", v.genTok)
	counter("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", v.drafts)
	counter("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", v.draftTokens)
	counter("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.", v.accepted)
	n := "vllm:spec_decode_num_accepted_tokens_per_pos"
	fmt.Fprintf(&b, "# HELP %s_total Accepted tokens per draft position.\n# TYPE %s_total counter\n", n, n)
	for i, p := range v.perPos {
		fmt.Fprintf(&b, "%s_total{%s,position=\"%d\"} %s\n", n, l, i, pyFloat(p))
	}
	fmt.Fprintf(&b, "# HELP %s_created Accepted tokens per draft position.\n# TYPE %s_created gauge\n", n, n)
	for i := range v.perPos {
		fmt.Fprintf(&b, "%s_created{%s,position=\"%d\"} 1.7331840123456e+09\n", n, l, i)
	}
	// a histogram, as vLLM has many: skipped, but it must not trip the decoder
	b.WriteString("# HELP vllm:time_per_output_token_seconds Histogram of time per output token in seconds.\n" +
		"# TYPE vllm:time_per_output_token_seconds histogram\n" +
		"vllm:time_per_output_token_seconds_bucket{" + l + `,le="0.01"} 3.0` + "\n" +
		"vllm:time_per_output_token_seconds_bucket{" + l + `,le="+Inf"} 9.0` + "\n" +
		"vllm:time_per_output_token_seconds_count{" + l + "} 9.0\n" +
		"vllm:time_per_output_token_seconds_sum{" + l + "} 0.5\n")
	return b.String()
}

// openMetrics is the same content as prometheus_client writes it for an OpenMetrics Accept.
func (v vllm) openMetrics() string {
	var b strings.Builder
	l := fmt.Sprintf(`engine="%d",%s`, v.engine, vllmModel)
	counter := func(name string, val float64) {
		fmt.Fprintf(&b, "# HELP %s x.\n# TYPE %s counter\n%s_total{%s} %s\n%s_created{%s} 1.7331840123456e+09\n",
			name, name, name, l, pyFloat(val), name, l)
	}
	counter("vllm:spec_decode_num_drafts", v.drafts)
	counter("vllm:spec_decode_num_draft_tokens", v.draftTokens)
	counter("vllm:spec_decode_num_accepted_tokens", v.accepted)
	fmt.Fprintf(&b, "# HELP vllm:num_requests_running x.\n# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{%s} %s\n", l, pyFloat(v.running))
	b.WriteString("# EOF\n")
	return b.String()
}

// pyFloat formats like Python's repr of a float (what prometheus_client writes).
func pyFloat(v float64) string {
	if v == float64(int64(v)) && v < 1e16 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprint(v)
}

// sglangRank is one SGLang scheduler rank's gauges (multiprocess mode "mostrecent": each
// rank's process writes its own; the exposition merges them under one family).
type sglangRank struct {
	dp, tp                           int
	accLen, accRate, running, genTPS float64
}

func sglangText(ranks ...sglangRank) string {
	var b strings.Builder
	for _, g := range []struct {
		name, help string
		v          func(sglangRank) float64
	}{
		{"sglang:num_running_reqs", "The number of running requests.", func(r sglangRank) float64 { return r.running }},
		{"sglang:gen_throughput", "The generation throughput (token/s).", func(r sglangRank) float64 { return r.genTPS }},
		{"sglang:token_usage", "The token usage.", func(sglangRank) float64 { return 0.25 }},
		{"sglang:spec_accept_length", "The average acceptance length of speculative decoding.", func(r sglangRank) float64 { return r.accLen }},
		{"sglang:spec_accept_rate", "The average acceptance rate of speculative decoding (`accepted tokens / total draft tokens` in batch).", func(r sglangRank) float64 { return r.accRate }},
	} {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n", g.name, g.help, g.name)
		for _, r := range ranks {
			l := fmt.Sprintf(`dp_rank="%d",engine_type="unified",model_name="Qwen/Qwen3-8B",pp_rank="0",tp_rank="%d"`, r.dp, r.tp)
			fmt.Fprintf(&b, "%s{%s} %s\n", g.name, l, pyFloat(g.v(r)))
		}
	}
	return b.String()
}

// llamaCppText is llama-server's /metrics (tools/server): "llamacpp:" + name, C++ stream
// formatting (%g-like, six significant digits).
func llamaCppText(drafts, draftTokens, accepted, predicted, seconds float64, perPos []float64) string {
	var b strings.Builder
	item := func(typ, name, help string, v float64) {
		fmt.Fprintf(&b, "# HELP llamacpp:%s %s\n# TYPE llamacpp:%s %s\nllamacpp:%s %s\n", name, help, name, typ, name, cppFloat(v))
	}
	item("counter", "tokens_predicted_total", "Number of generation tokens processed.", predicted)
	item("counter", "tokens_predicted_seconds_total", "Total time spent generating tokens", seconds)
	item("counter", "n_decode_total", "Total number of llama_decode() calls", drafts)
	item("counter", "spec_decode_num_draft_tokens_total", "Speculative: Total draft tokens generated", draftTokens)
	item("counter", "spec_decode_num_accepted_tokens_total", "Speculative: Total draft tokens accepted by the target model", accepted)
	item("counter", "spec_decode_num_drafts_total", "Speculative: Total speculative decoding verification steps", drafts)
	item("gauge", "requests_processing", "Number of requests processing", 2)
	item("gauge", "requests_deferred", "Number of requests deferred", 0)
	b.WriteString("# HELP llamacpp:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens per draft position\n" +
		"# TYPE llamacpp:spec_decode_num_accepted_tokens_per_pos_total counter\n")
	for i, p := range perPos {
		fmt.Fprintf(&b, "llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position=\"%d\"} %s\n", i, cppFloat(p))
	}
	return b.String()
}

func cppFloat(v float64) string { return fmt.Sprintf("%g", float64(float32(v))) }

// trtllmText is TensorRT-LLM's MetricsCollector (prefix trtllm_, labels model_name, engine_type).
func trtllmText(draftTokens, accepted, accLen float64) string {
	l := `engine_type="trtllm",model_name="nvidia/Llama-3.1-8B-Instruct-FP8"`
	return fmt.Sprintf("# HELP trtllm_spec_decode_num_draft_tokens_total Total draft tokens.\n"+
		"# TYPE trtllm_spec_decode_num_draft_tokens_total counter\n"+
		"trtllm_spec_decode_num_draft_tokens_total{%[1]s} %[2]s\n"+
		"# HELP trtllm_spec_decode_num_draft_tokens_created Total draft tokens.\n"+
		"# TYPE trtllm_spec_decode_num_draft_tokens_created gauge\n"+
		"trtllm_spec_decode_num_draft_tokens_created{%[1]s} 1.7331840123456e+09\n"+
		"# HELP trtllm_spec_decode_num_accepted_tokens_total Total accepted tokens.\n"+
		"# TYPE trtllm_spec_decode_num_accepted_tokens_total counter\n"+
		"trtllm_spec_decode_num_accepted_tokens_total{%[1]s} %[3]s\n"+
		"# HELP trtllm_spec_decode_acceptance_length Acceptance length.\n"+
		"# TYPE trtllm_spec_decode_acceptance_length gauge\n"+
		"trtllm_spec_decode_acceptance_length{%[1]s} %[4]s\n", l, pyFloat(draftTokens), pyFloat(accepted), pyFloat(accLen))
}

// endpoint is a loopback HTTP server whose body the test sets between scrapes.
type endpoint struct {
	*httptest.Server
	mu    sync.Mutex
	body  string
	ctype string
}

func newEndpoint(t testing.TB) *endpoint {
	t.Helper()
	e := &endpoint{ctype: "text/plain; version=0.0.4; charset=utf-8"}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		e.mu.Lock()
		body, ctype := e.body, e.ctype
		e.mu.Unlock()
		w.Header().Set("Content-Type", ctype)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(e.Close)
	return e
}

func (e *endpoint) serve(body string) {
	e.mu.Lock()
	e.body = body
	e.mu.Unlock()
}

// fakeClock is advanced by the test; its tickers fire only when the test sends on them.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	tickers chan chan time.Time // each NewTicker's channel, in call order
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), tickers: make(chan chan time.Time, 64)}
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func (c *fakeClock) NewTicker(time.Duration) (<-chan time.Time, func()) {
	ch := make(chan time.Time)
	c.tickers <- ch
	return ch, func() {}
}

// sink records what the source applied (copies: the bytes are the source's).
type sink struct {
	mu  sync.Mutex
	got []sample.Sample
}

func (s *sink) ApplySample(_ sample.Result, x *sample.Sample) {
	c := *x
	c.Host, c.Unit, c.Rank = append([]byte(nil), x.Host...), append([]byte(nil), x.Unit...), append([]byte(nil), x.Rank...)
	s.mu.Lock()
	s.got = append(s.got, c)
	s.mu.Unlock()
}

// take returns and forgets what was applied so far.
func (s *sink) take() []sample.Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.got
	s.got = nil
	return g
}

func (s *sink) len() int { s.mu.Lock(); defer s.mu.Unlock(); return len(s.got) }

// one returns the only sample of kind k in got.
func one(t *testing.T, got []sample.Sample, k sample.Kind) sample.Sample {
	t.Helper()
	var out []sample.Sample
	for _, s := range got {
		if s.Kind == k {
			out = append(out, s)
		}
	}
	if len(out) != 1 {
		t.Fatalf("want one %s sample, got %d of %d: %+v", k, len(out), len(got), got)
	}
	return out[0]
}

func none(t *testing.T, got []sample.Sample, f sample.Field) {
	t.Helper()
	for _, s := range got {
		if v, ok := s.Get(f); ok {
			t.Fatalf("want no %s, got %v in %s sample", f, v, s.Kind)
		}
	}
}
