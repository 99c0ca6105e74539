package enginemetrics

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// TRTLLM is a simulated trtllm-serve: its iteration statistics, served read-and-drain at
// /metrics from a bounded queue that drops the oldest record when full (as the executor's
// worker does), and its prometheus_client exposition at /prometheus/metrics. The test drives
// it step by step (Advance), so nothing depends on time; every figure is a function of the
// iteration counter.
type TRTLLM struct {
	// Cap bounds the queue (iter_stats_max_iterations; 0: 1000).
	Cap int
	// Ranks is the attention-DP ranks, each its own iteration stream (0 or 1: one rank).
	Ranks int
	// MaxDraft is the draft length (0: 3).
	MaxDraft int

	mu      sync.Mutex
	queue   []string // records as to_json_str writes them, oldest first
	iter    []int64  // next iteration per rank
	dropped []int64
	// Truth per rank: the sums over every record produced, and over those delivered.
	produced, delivered []Spec
	// Per-request counters of /prometheus/metrics (requests finish every 4th iteration).
	perPosDrafted, perPosAccepted []float64
	repeatLast                    bool
	lastServed                    string
}

// Spec sums specDecodingStats over records.
type Spec struct {
	Records, Draft, Accepted, Requests float64
}

func (m *TRTLLM) init() {
	if m.iter != nil {
		return
	}
	if m.Cap <= 0 {
		m.Cap = 1000
	}
	if m.Ranks <= 0 {
		m.Ranks = 1
	}
	if m.MaxDraft <= 0 {
		m.MaxDraft = 3
	}
	m.iter = make([]int64, m.Ranks)
	m.dropped = make([]int64, m.Ranks)
	m.produced = make([]Spec, m.Ranks)
	m.delivered = make([]Spec, m.Ranks)
	m.perPosDrafted = make([]float64, m.MaxDraft)
	m.perPosAccepted = make([]float64, m.MaxDraft)
}

// iteration is one rank's record for iteration it: a deterministic batch and acceptance.
func (m *TRTLLM) iteration(rank int, it int64) (draft, accepted, requests float64) {
	requests = float64(1 + (it*7+int64(rank)*3)%8)
	draft = requests * float64(m.MaxDraft)
	// acceptance per request: 0..MaxDraft, a pattern that repeats every 11 iterations
	accepted = 0
	for r := int64(0); r < int64(requests); r++ {
		accepted += float64((it + r*5 + int64(rank)) % 11 * int64(m.MaxDraft) / 10)
	}
	return draft, accepted, requests
}

// Advance runs n iterations on every rank, queueing their records (dropping the oldest past
// Cap).
func (m *TRTLLM) Advance(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.init()
	for range n {
		for rank := range m.Ranks {
			it := m.iter[rank]
			m.iter[rank]++
			d, a, r := m.iteration(rank, it)
			m.produced[rank].add(d, a, r)
			rec := fmt.Sprintf(`{"iter":%d,"timestamp":"12-01-2026 12:00:00","iterLatencyMS":%g,"numActiveRequests":%g,`+
				`"numQueuedRequests":0,"attentionDpRank":%d,"specDecodingStats":{"numDraftTokens":%g,"numAcceptedTokens":%g,`+
				`"numRequestsWithDraftTokens":%g,"acceptanceLength":%g,"iterLatencyMS":1.5,"draftOverhead":0.1}}`,
				it, 20+r, r, rank, d, a, r, (a+r)/r)
			if len(m.queue) >= m.Cap {
				m.dropOldest()
			}
			m.queue = append(m.queue, rec)
			if it%4 == 3 { // a request finishes: the per-request per-position counters move
				for p := range m.MaxDraft {
					m.perPosDrafted[p] += 10 - float64(p)*2
					m.perPosAccepted[p] += float64((10 - p*2) * (m.MaxDraft - p) / (m.MaxDraft + 1))
				}
			}
		}
	}
}

func (m *TRTLLM) dropOldest() {
	var r struct {
		Rank int `json:"attentionDpRank"`
	}
	_ = json.Unmarshal([]byte(m.queue[0]), &r)
	m.dropped[r.Rank]++
	m.queue = m.queue[1:]
}

// RepeatLast makes the next drain serve the previous drain's last record again first (a
// response replayed), which the reader must not apply twice.
func (m *TRTLLM) RepeatLast() { m.mu.Lock(); m.repeatLast = true; m.mu.Unlock() }

// Drain is the /metrics body: every queued record, as a JSON array of JSON strings (the worker
// queues to_json_str), and the queue emptied.
func (m *TRTLLM) Drain() []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.init()
	recs := m.queue
	m.queue = nil
	var b strings.Builder
	b.WriteByte('[')
	n := 0
	if m.repeatLast && m.lastServed != "" {
		q, _ := json.Marshal(m.lastServed)
		b.Write(q)
		n++
	}
	m.repeatLast = false
	for _, r := range recs {
		if n > 0 {
			b.WriteByte(',')
		}
		q, _ := json.Marshal(r)
		b.Write(q)
		n++
		var x struct {
			Rank int `json:"attentionDpRank"`
			Spec struct {
				D float64 `json:"numDraftTokens"`
				A float64 `json:"numAcceptedTokens"`
				R float64 `json:"numRequestsWithDraftTokens"`
			} `json:"specDecodingStats"`
		}
		_ = json.Unmarshal([]byte(r), &x)
		m.delivered[x.Rank].add(x.Spec.D, x.Spec.A, x.Spec.R)
		m.lastServed = r
	}
	b.WriteByte(']')
	return []byte(b.String())
}

func (s *Spec) add(d, a, r float64) { s.Records++; s.Draft += d; s.Accepted += a; s.Requests += r }

// Truth is rank's sums over the records produced and over those served, and the records the
// queue dropped.
func (m *TRTLLM) Truth(rank int) (produced, delivered Spec, dropped int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.init()
	return m.produced[rank], m.delivered[rank], m.dropped[rank]
}

// PerPos is the per-position counters of /prometheus/metrics now.
func (m *TRTLLM) PerPos() (drafted, accepted []float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.init()
	return append([]float64(nil), m.perPosDrafted...), append([]float64(nil), m.perPosAccepted...)
}

// Exposition is /prometheus/metrics as MetricsCollector writes it: the per-request
// per-position counters (an accepted position's counter exists only once it accepted a
// token), the speculative config info and the iteration latency gauge.
func (m *TRTLLM) Exposition() []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.init()
	l := `engine_type="trtllm",model_name="nvidia/Llama-3.1-8B-Instruct-FP8"`
	var b strings.Builder
	b.WriteString("# HELP trtllm_spec_decode_drafted_tokens_total Total drafted tokens per speculative decoding position.\n" +
		"# TYPE trtllm_spec_decode_drafted_tokens_total counter\n")
	for p, v := range m.perPosDrafted {
		if v > 0 {
			fmt.Fprintf(&b, "trtllm_spec_decode_drafted_tokens_total{%s,token_position=\"%d\"} %s\n", l, p, pyFloat(v))
		}
	}
	b.WriteString("# HELP trtllm_spec_decode_accepted_tokens_total Total accepted tokens per speculative decoding position.\n" +
		"# TYPE trtllm_spec_decode_accepted_tokens_total counter\n")
	for p, v := range m.perPosAccepted {
		if v > 0 {
			fmt.Fprintf(&b, "trtllm_spec_decode_accepted_tokens_total{%s,token_position=\"%d\"} %s\n", l, p, pyFloat(v))
		}
	}
	fmt.Fprintf(&b, "# HELP trtllm_iteration_latency_seconds Iteration latency in seconds\n# TYPE trtllm_iteration_latency_seconds gauge\n"+
		"trtllm_iteration_latency_seconds{%s} 0.024\n", l)
	fmt.Fprintf(&b, "# HELP trtllm_speculative_config_info Speculative decoding configuration info\n# TYPE trtllm_speculative_config_info gauge\n"+
		"trtllm_speculative_config_info{%s,decoding_type=\"MTP\",max_draft_len=\"%d\"} 1.0\n", l, m.MaxDraft)
	fmt.Fprintf(&b, "# HELP trtllm_spec_decode_acceptance_length Acceptance length in speculative decoding\n# TYPE trtllm_spec_decode_acceptance_length gauge\n"+
		"trtllm_spec_decode_acceptance_length{%s} 9.0\n", l)
	return []byte(b.String())
}

// ServeHTTP serves /metrics (the drain) and /prometheus/metrics.
func (m *TRTLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/metrics":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(m.Drain())
	case "/prometheus/metrics":
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write(m.Exposition())
	default:
		http.NotFound(w, r)
	}
}
