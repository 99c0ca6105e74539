//go:build linux

package llamacpp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is one completion the load sends.
type Request struct {
	Prompt string
	N      int     // tokens to generate
	Temp   float64 // 0: greedy
	Seed   int
	Chat   bool // the OpenAI chat endpoint instead of /completion
}

// Truth is what the engine itself says of one request: its response's timings, the ground
// truth specwatch is judged against (never specwatch's own parse of the log).
type Truth struct {
	Req        Request
	Start, End time.Time // the client's clock
	Parallel   bool      // it overlapped another request of the load
	PromptN    int       // prompt tokens evaluated (prompt_n)
	CacheN     int       // prompt tokens reused from the cache (cache_n)
	G          int       // tokens generated (predicted_n)
	D, A       int       // draft tokens generated and accepted (draft_n, draft_n_accepted)
	PromptMs   float64
	EvalMs     float64 // predicted_ms
}

// Steps is the request's verify steps: its first token comes from the prompt pass, and every
// step commits its accepted drafts plus one token of the target's.
func (r Truth) Steps() int { return r.G - 1 - r.A }

// Commit is the tokens committed per verify step.
func (r Truth) Commit() float64 { return float64(r.G-1) / float64(r.Steps()) }

// StepMs is the mean verify step.
func (r Truth) StepMs() float64 { return r.EvalMs / float64(r.Steps()) }

// Context is the mean context over the request's steps: the whole prompt, cached or not,
// and half of what it generated.
func (r Truth) Context() float64 { return float64(r.PromptN+r.CacheN) + float64(r.G-1)/2 }

// TPS is the engine's own decode tokens per second for the request.
func (r Truth) TPS() float64 { return float64(r.G) / (r.EvalMs / 1000) }

func (r Truth) String() string {
	return fmt.Sprintf("G=%d A=%d D=%d steps=%d commit=%.3f step=%.2fms ctx=%.0f tps=%.1f parallel=%v",
		r.G, r.A, r.D, r.Steps(), r.Commit(), r.StepMs(), r.Context(), r.TPS(), r.Parallel)
}

type timings struct {
	PromptN   int     `json:"prompt_n"`
	CacheN    int     `json:"cache_n"`
	PromptMs  float64 `json:"prompt_ms"`
	Predicted int     `json:"predicted_n"`
	EvalMs    float64 `json:"predicted_ms"`
	DraftN    int     `json:"draft_n"`
	DraftAcc  int     `json:"draft_n_accepted"`
}

// Do sends one request and returns the engine's truth for it.
func (s *Server) Do(t testing.TB, req Request) Truth {
	t.Helper()
	var body any
	path := "/completion"
	if req.Chat {
		path = "/v1/chat/completions"
		body = map[string]any{"messages": []map[string]string{{"role": "user", "content": req.Prompt}},
			"max_tokens": req.N, "temperature": req.Temp, "seed": req.Seed}
	} else {
		body = map[string]any{"prompt": req.Prompt, "n_predict": req.N, "temperature": req.Temp,
			"seed": req.Seed, "cache_prompt": true}
	}
	b, _ := json.Marshal(body)
	tr := Truth{Req: req, Start: time.Now()}
	resp, err := http.Post(s.URL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer resp.Body.Close()
	var out struct {
		Timings *timings `json:"timings"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Timings == nil || resp.StatusCode != 200 {
		t.Fatalf("%s: status %d, %v, timings %v", path, resp.StatusCode, err, out.Timings)
	}
	tr.End = time.Now()
	tm := out.Timings
	tr.PromptN, tr.CacheN, tr.PromptMs = tm.PromptN, tm.CacheN, tm.PromptMs
	tr.G, tr.EvalMs, tr.D, tr.A = tm.Predicted, tm.EvalMs, tm.DraftN, tm.DraftAcc
	if tr.G != req.N || tr.Steps() <= 0 {
		t.Fatalf("%s: generated %d of %d tokens (%d accepted): the load needs full requests", path, tr.G, req.N, tr.A)
	}
	return tr
}

// Parallel sends the requests at once and returns their truths, marked Parallel when they
// overlapped.
func (s *Server) Parallel(t testing.TB, reqs []Request) []Truth {
	t.Helper()
	out := make([]Truth, len(reqs))
	var wg sync.WaitGroup
	for i, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = s.Do(t, r)
		}()
	}
	wg.Wait()
	markOverlaps(out)
	return out
}

func markOverlaps(rs []Truth) {
	for i := range rs {
		for j := range rs {
			if i != j && rs[i].Start.Before(rs[j].End) && rs[j].Start.Before(rs[i].End) {
				rs[i].Parallel = true
			}
		}
	}
}

// Counters scrapes the engine's /metrics into name{labels} → value.
func (s *Server) Counters(t testing.TB) map[string]float64 {
	t.Helper()
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatalf("/metrics: %v", err)
	}
	defer resp.Body.Close()
	m := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") {
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		if i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(l[i+1:], 64); err == nil {
			m[l[:i]] = v
		}
	}
	return m
}

// Text makes prompts: Go source (predictable for these models, which learned its bigrams)
// and random words (not), both from a fixed seed.
type Text struct {
	corpus string
	rng    *rand.Rand
}

// NewText reads the corpus the models were made from.
func NewText(corpus string, seed uint64) *Text {
	return &Text{corpus: corpus, rng: rand.New(rand.NewPCG(seed, 1))}
}

// Source returns the corpus's first n bytes: prompts of growing n share their prefix, so the
// engine's prompt cache evaluates only what is new, as in a growing conversation.
func (x *Text) Source(n int) string { return x.corpus[:min(n, len(x.corpus))] }

// Random returns n bytes of words drawn at random from the corpus.
func (x *Text) Random(n int) string {
	words := strings.Fields(x.corpus[:min(len(x.corpus), 200000)])
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[x.rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

// Fit is an ordinary least-squares line step_ms = A + B·context.
type Fit struct{ A, B float64 }

// FitAlone fits the steps of the requests that ran alone.
func FitAlone(rs []Truth) (Fit, int) {
	var n, sx, sy, sxx, sxy float64
	for _, r := range rs {
		if r.Parallel {
			continue
		}
		x, y := r.Context(), r.StepMs()
		n++
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	b := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	return Fit{A: (sy - b*sx) / n, B: b}, int(n)
}

// Width is the draft tokens each verify step checked, on average.
func (r Truth) Width() float64 { return float64(r.D) / float64(r.Steps()) }

// WidthFit is a least-squares step_ms = A + B·context + C·u + D·u·context, u = Width(): the
// form specwatch fits where u varies (n-gram drafting).
type WidthFit struct{ A, B, C, D float64 }

// FitWidthAlone fits the requests that ran alone in WidthFit's form, by Gaussian elimination
// on the normal equations (ok false if they are singular).
func FitWidthAlone(rs []Truth) (f WidthFit, n int, ok bool) {
	var m [4][5]float64 // [XᵀX | Xᵀy]
	for _, r := range rs {
		if r.Parallel {
			continue
		}
		n++
		x := [4]float64{1, r.Context(), r.Width(), r.Width() * r.Context()}
		for i := range x {
			for j := range x {
				m[i][j] += x[i] * x[j]
			}
			m[i][4] += x[i] * r.StepMs()
		}
	}
	for c := range 4 {
		p := c
		for i := c + 1; i < 4; i++ {
			if math.Abs(m[i][c]) > math.Abs(m[p][c]) {
				p = i
			}
		}
		m[c], m[p] = m[p], m[c]
		if math.Abs(m[c][c]) < 1e-12 {
			return f, n, false
		}
		for i := range 4 {
			if i != c {
				k := m[i][c] / m[c][c]
				for j := c; j < 5; j++ {
					m[i][j] -= k * m[c][j]
				}
			}
		}
	}
	return WidthFit{m[0][4] / m[0][0], m[1][4] / m[1][1], m[2][4] / m[2][2], m[3][4] / m[3][3]}, n, true
}

// Pooled is Σ committed tokens ÷ Σ verify steps.
func Pooled(rs []Truth) float64 {
	var tok, steps float64
	for _, r := range rs {
		tok += float64(r.G - 1)
		steps += float64(r.Steps())
	}
	return tok / steps
}

// relErr is |got − want| / |want|.
func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }
