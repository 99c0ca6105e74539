// Package specoff follows whether an engine drafts, per batch size: steps without drafts are
// speculation off by policy (vLLM's K = 0 above a batch size, SGLang's adaptive steps at 0,
// TensorRT-LLM's acceptance gate), never a stuck drafter. It decides two things: a switch that
// came with a change of batch size (an event), and speculation that stopped at a batch size it
// ran at before and stayed off for longer than a set time (speculation_disabled).
package specoff

import (
	"math"
	"time"

	"github.com/specwatch/specwatch/model/schema"
)

// maxBatch is the largest batch size told apart; larger ones share its bit.
const maxBatch = 256

// Tracker is one series' speculation state. The zero value is ready; the model feeds it in
// time order.
type Tracker struct {
	drafted  [maxBatch/64 + 1]uint64 // batch sizes seen drafting
	seen     bool                    // the engine drafted at some time
	off      bool                    // the latest observation drafted nothing
	last     int                     // batch size of the latest observation
	offSince int64                   // first step without drafts at a batch seen drafting, 0 if none
	raised   bool
	lastEvt  [2]int64 // latest switch event off (0) and on (1)
	// What the engine said: its steps and why (SGLang's adaptive line, TensorRT-LLM's gate).
	statedOff bool
	cause     [3]float64 // schema.SpecCause…, accepted drafts, threshold
	samples   int64      // observations without drafts
}

// Decision is what one observation changes.
type Decision struct {
	Event        schema.Evidence // a switch with the batch size (CodeSpecOn, CodeSpecOffBatch); CodeNone when none
	Raise, Clear bool            // speculation_disabled
}

// Stated records the engine's own word: it now drafts steps (0: speculation off), with what it
// judged by — accepted drafts (SGLang's ema_accept_len, TensorRT-LLM's rolling average) and,
// for TensorRT-LLM's SpeculationGate (gate true), the threshold that turned it off for good.
func (tr *Tracker) Stated(steps, accepted, threshold float64, gate bool) {
	tr.statedOff = steps == 0
	switch {
	case !tr.statedOff:
	case gate:
		tr.cause = [3]float64{schema.SpecCauseGate, accepted, threshold}
	default:
		tr.cause = [3]float64{schema.SpecCauseAdaptive, accepted}
	}
}

// NotDrafting reports whether a sample is steps without drafts: the engine says so (its draft
// steps are 0), or its commit length is 1.00 after the engine said it stopped drafting.
func (tr *Tracker) NotDrafting(steps float64, hasSteps bool, commit float64, hasCommit bool) bool {
	if hasSteps {
		return steps == 0
	}
	return hasCommit && commit <= 1.005 && tr.statedOff
}

// StatedOff reports whether the engine said it stopped drafting and has not said otherwise,
// so that its lines at commit length 1.00 are steps without drafts.
func (tr *Tracker) StatedOff() bool { return tr.statedOff }

// Off reports whether the latest observation drafted nothing, and how many did not.
func (tr *Tracker) Off() (bool, int64) { return tr.off, tr.samples }

// Observe takes one decode observation at t (Unix ns) with running requests, drafting or not;
// after is how long speculation may stay off at a batch size it ran at before it is raised,
// spacing the least time between two switch events of one direction.
func (tr *Tracker) Observe(t int64, running float64, drafting bool, after, spacing time.Duration) Decision {
	b := batch(running)
	var d Decision
	if drafting {
		tr.drafted[b/64] |= 1 << (b % 64)
		tr.statedOff = false // its drafts say speculation is on again
		if tr.off && tr.seen {
			d.Event = tr.switched(t, 1, b, spacing)
		}
		tr.seen, tr.off, tr.offSince, tr.last = true, false, 0, b
		d.Clear, tr.raised = tr.raised, false
		return d
	}
	tr.samples++
	if !tr.seen {
		tr.last = b
		return d // an engine that never drafted is not speculating: nothing was switched off
	}
	if !tr.off {
		d.Event = tr.switched(t, 0, b, spacing)
	}
	tr.off, tr.last = true, b
	if tr.drafted[b/64]&(1<<(b%64)) == 0 {
		return d // a batch size it never drafted at: policy by batch size
	}
	if tr.offSince == 0 {
		tr.offSince = t
	}
	if !tr.raised && t-tr.offSince >= int64(after) {
		tr.raised, d.Raise = true, true
	}
	return d
}

// switched is the event of a switch to on (dir 1) or off (0) at batch b, when it came with a
// change of batch size and none of its direction was written within spacing.
func (tr *Tracker) switched(t int64, dir int, b int, spacing time.Duration) schema.Evidence {
	if b == tr.last || tr.lastEvt[dir] != 0 && t-tr.lastEvt[dir] < int64(spacing) {
		return schema.Evidence{}
	}
	tr.lastEvt[dir] = t
	if dir == 1 {
		return schema.Ev(schema.CodeSpecOn, float64(b), float64(tr.last))
	}
	return schema.Ev(schema.CodeSpecOffBatch, float64(b), float64(tr.last))
}

// Evidence is speculation_disabled's numbers (schema.CodeSpecOff) after it stayed off for after.
func (tr *Tracker) Evidence(after time.Duration) schema.Evidence {
	return schema.Ev(schema.CodeSpecOff, float64(after), float64(tr.last), tr.cause[0], tr.cause[1], tr.cause[2])
}

func batch(running float64) int {
	if math.IsNaN(running) || running < 0 {
		return 0
	}
	return int(min(math.Round(running), maxBatch))
}
