package sim

import "time"

// Pass is one forward pass of a rank whose service has ForwardPass: what the engines'
// forward-pass metrics publish of it (its wall time, its decode requests and their KV tokens),
// with the commit length it drew.
type Pass struct {
	Series           Series
	Time             time.Time // when it ended
	Context, Running int
	StepSeconds      float64
	CommitLen        float64
}

// passes is a rank's forward passes since its last decode line.
type passes struct {
	on            func(Pass)
	n             int
	tokens, steps float64 // tokens committed; request steps (running requests per pass, summed)
}

// pass hands the pass ending at t to Scenario.OnPass and counts it toward the decode line; it
// reports whether that line is due (DecodeInterval passes), with the interval's tokens and
// request steps, whose ratio is the line's commit length.
func (r *rankSim) pass(t int64, ctx, running int, step, c float64) (due bool, tokens, steps float64) {
	p := &r.fp
	if p.on != nil {
		p.on(Pass{Series: r.series, Time: time.Unix(0, t), Context: ctx, Running: running, StepSeconds: step, CommitLen: c})
	}
	p.n++
	p.tokens += c * float64(running)
	p.steps += float64(running)
	if p.n < r.decodeInterval {
		return false, 0, 0
	}
	tokens, steps = p.tokens, p.steps
	p.n, p.tokens, p.steps = 0, 0, 0
	return true, tokens, steps
}
