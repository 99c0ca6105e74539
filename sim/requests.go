package sim

import (
	"math"
	"time"
)

// never is a time after every scenario.
const never = math.MaxInt64

// request is one generation in flight. gen is fractional because a step commits a mean number
// of tokens per request; the context written is its integer part.
type request struct {
	id       int
	prompt   int
	length   int // tokens to generate
	gen      float64
	phase    int
	phaseAt  float64 // gen when the phase began
	admitted int64
	cached   int // llama.cpp: prompt tokens its slot's cache holds

	ll llamaReq // llama.cpp's counters, printed when the request ends
}

func (q *request) context() int { return q.prompt + int(q.gen) }

// meanCommit is the request's expected commit length at its current position in the text.
func (q *request) meanCommit(ph []Phase) float64 {
	p := &ph[q.phase]
	if p.To == 0 || p.Tokens == 0 {
		return p.Mean
	}
	f := min(1, (q.gen-q.phaseAt)/float64(p.Tokens))
	return p.Mean + (p.To-p.Mean)*f
}

// advancePhase moves the request on to the next phase once it has generated the phase's tokens.
func (q *request) advancePhase(ph []Phase) {
	for q.phase+1 < len(ph) && ph[q.phase].Tokens > 0 && q.gen-q.phaseAt >= float64(ph[q.phase].Tokens) {
		q.phaseAt += float64(ph[q.phase].Tokens)
		q.phase++
	}
}

func (q *request) finished(maxCtx int) bool {
	return q.gen >= float64(q.length) || q.context() >= maxCtx
}

// logUniform draws from [lo, hi] with a log-uniform density: request lengths span orders of
// magnitude, and a uniform draw would make nearly every request long.
func (r *rankSim) logUniform(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	l, h := math.Log(float64(lo)), math.Log(float64(hi)+1)
	return min(hi, int(math.Exp(l+(h-l)*r.rng.Float64())))
}

func (r *rankSim) newRequest(at int64, scripted *Request) request {
	w := &r.svc.Workload
	q := request{id: r.nextID, admitted: at}
	r.nextID++
	if scripted != nil {
		q.prompt, q.length, q.phase = max(1, scripted.Prompt), max(1, scripted.Output), scripted.Phase
		q.phase = min(max(q.phase, 0), len(r.svc.Acceptance.Phases)-1)
		return q
	}
	ws := w.shiftAt(time.Duration(at - r.start))
	q.prompt = r.logUniform(ws.PromptMin, ws.PromptMax)
	q.length = r.logUniform(ws.OutputMin, ws.OutputMax)
	q.phase = r.pickPhase()
	if r.svc.Engine == LlamaCpp && r.rng.IntN(2) == 0 {
		// a follow-up whose start a slot still holds: its prompt eval counts only the rest
		q.cached = int(float64(q.prompt-1) * 0.9 * r.rng.Float64())
	}
	return q
}

func (r *rankSim) pickPhase() int {
	ph := r.svc.Acceptance.Phases
	total := 0.0
	for _, p := range ph {
		total += p.Weight
	}
	if total == 0 {
		return 0
	}
	x := r.rng.Float64() * total
	for i, p := range ph {
		x -= p.Weight
		if x < 0 {
			return i
		}
	}
	return len(ph) - 1
}

// nextArrival draws the arrival after the one at prev.
func (r *rankSim) nextArrival(prev int64) int64 {
	w := &r.svc.Workload
	if len(w.Script) > 0 {
		if r.script < len(w.Script) {
			return r.start + int64(w.Script[r.script].At)
		}
		return never
	}
	mean := w.shiftAt(time.Duration(prev - r.start)).ArrivalMean
	if mean == 0 {
		return never
	}
	return prev + int64(r.rng.ExpFloat64()*float64(mean))
}

// closedLoop reports whether the batch is kept full instead of fed by arrivals.
func (r *rankSim) closedLoop() bool {
	w := &r.svc.Workload
	return len(w.Script) == 0 && w.ArrivalMean == 0
}

// enqueue moves the arrivals up to t into the waiting queue.
func (r *rankSim) enqueue(t int64) {
	for r.arrival <= t {
		var scripted *Request
		if len(r.svc.Workload.Script) > 0 {
			scripted = &r.svc.Workload.Script[r.script]
			r.script++
		}
		r.queue = append(r.queue, r.newRequest(r.arrival, scripted))
		r.arrival = r.nextArrival(r.arrival)
	}
	if r.closedLoop() {
		for len(r.running)+len(r.queue) < r.svc.Workload.Concurrency {
			r.queue = append(r.queue, r.newRequest(t, nil))
		}
	}
}

// admit starts waiting requests at t while the batch has room, and returns how many it started.
func (r *rankSim) admit(t int64) int {
	r.enqueue(t)
	n := min(len(r.queue), r.svc.Workload.Concurrency-len(r.running))
	if n <= 0 {
		return 0
	}
	for i := range n {
		q := r.queue[i]
		q.admitted = t
		r.running = append(r.running, q)
		r.promptTokens += q.prompt
	}
	r.queue = r.queue[:copy(r.queue, r.queue[n:])]
	return n
}

// waiting is the queue as the engine shows it. Here requests that arrive during an interval join
// the batch at its end, while a real engine with free slots would have admitted them already, so
// only those beyond the free slots count as waiting.
func (r *rankSim) waiting() int {
	return max(0, len(r.queue)-(r.svc.Workload.Concurrency-len(r.running)))
}

// contextTokens is the KV tokens of the running requests: SGLang's #token.
func (r *rankSim) contextTokens() int {
	n := 0
	for i := range r.running {
		n += r.running[i].context()
	}
	return n
}

// commit draws the interval's commit length: the mean of the running requests' phase means,
// bent by the faults, with per-line noise, clamped to what a draft of DraftLen can commit.
func (r *rankSim) commit(e *effects) float64 {
	a := &r.svc.Acceptance
	if a.DraftLen == 0 || e.stuck || len(r.running) == 0 || r.specOff() {
		return 1
	}
	m := 0.0
	for i := range r.running {
		m += r.running[i].meanCommit(a.Phases)
	}
	m = m / float64(len(r.running)) * e.commitMul
	if a.NoiseSD > 0 {
		m += a.NoiseSD * r.rng.NormFloat64()
	}
	return min(max(m, 1), float64(a.DraftLen+1))
}

// step is the interval's step time in seconds at ctx context tokens.
func (r *rankSim) step(ctx int, e *effects, noise float64) float64 {
	m := &r.svc.Step
	return (m.A + m.B*float64(ctx)) * e.stepMul * noise
}

// stepNoise draws the interval's multiplicative step noise.
func (r *rankSim) stepNoise() float64 {
	if r.svc.Step.Noise <= 0 {
		return 1
	}
	return max(0.5, 1+r.svc.Step.Noise*r.rng.NormFloat64())
}
