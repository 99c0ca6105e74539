// Package specoff follows whether an engine drafts, per batch size: steps without drafts are
// speculation off by policy (vLLM's K = 0 above a batch size, SGLang's adaptive steps at 0,
// TensorRT-LLM's acceptance gate), never a stuck drafter. It decides two things: a switch that
// came with a change of batch size (an event), and speculation that stopped at a batch size it
// ran at before and stayed off for longer than a set time (speculation_disabled).
package specoff

import (
	"fmt"
	"math"
	"time"
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
	cause     string
	samples   int64 // observations without drafts
}

// Decision is what one observation changes.
type Decision struct {
	Event        string // a switch with the batch size, as a sentence; empty when none
	Raise, Clear bool   // speculation_disabled
}

// Stated records the engine's own word: it now drafts steps (0: speculation off), with what it
// judged by — accepted drafts (SGLang's ema_accept_len, TensorRT-LLM's rolling average) and,
// for TensorRT-LLM's SpeculationGate (gate true), the threshold that turned it off for good.
func (tr *Tracker) Stated(steps, accepted, threshold float64, gate bool) {
	tr.statedOff = steps == 0
	switch {
	case !tr.statedOff:
	case gate:
		tr.cause = fmt.Sprintf("TensorRT-LLM's SpeculationGate turned it off for good: rolling accepted drafts %.3f below the threshold %g", accepted, threshold)
	default:
		tr.cause = fmt.Sprintf("SGLang's adaptive speculation set its steps to 0 at ema_accept_len %.2f", accepted)
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

// switched is the event sentence of a switch to on (dir 1) or off (0) at batch b, when it
// came with a change of batch size and none of its direction was written within spacing.
func (tr *Tracker) switched(t int64, dir int, b int, spacing time.Duration) string {
	if b == tr.last || tr.lastEvt[dir] != 0 && t-tr.lastEvt[dir] < int64(spacing) {
		return ""
	}
	tr.lastEvt[dir] = t
	if dir == 1 {
		return fmt.Sprintf("speculation on again at %d running requests (off at %d)", b, tr.last)
	}
	return fmt.Sprintf("speculation off at %d running requests (drafting at %d): the engine's policy for this batch size", b, tr.last)
}

// Detail is speculation_disabled's sentence.
func (tr *Tracker) Detail(after time.Duration) string {
	cause := tr.cause
	if cause == "" {
		cause = "the engine states no cause"
	}
	return fmt.Sprintf("no drafts for %s at %d running requests, a batch size it drafted at before: speculation switched off (%s); tokens per step fell to 1",
		after, tr.last, cause)
}

func batch(running float64) int {
	if math.IsNaN(running) || running < 0 {
		return 0
	}
	return int(min(math.Round(running), maxBatch))
}
