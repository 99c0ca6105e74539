package model

import (
	"math"

	"github.com/specwatch/specwatch/model/internal/estimate"
	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/sample"
)

// request handles one finished llama.cpp request (parse.EventRequest): a decode sample whose
// step, commit length and context are means over the request's verify steps, and whose tok/s
// is its own, never a pause-diluted rate: so it is never after_idle.
func (se *Series) request(s *sample.Sample) {
	se.startRequests()
	commit, hasCommit := s.Get(sample.Commit)
	running, hasRunning := s.Get(sample.Running)
	if !hasRunning || running < 1 {
		running = 1 // a finished request ran, alone unless the sample says otherwise
	}
	acc, hasAcc := s.Get(sample.Accepted)
	drafted, hasDr := s.Get(sample.Drafted)
	if hasAcc && hasDr {
		se.inconsistentCheck(s.Time, acc > drafted, schema.Ev(schema.CodeAcceptedOverDrafted, acc, drafted))
	}
	if hasCommit && se.takeCommit(s) {
		// Only a request that drafted speaks of the drafter: one that never did (n-gram drafting
		// found nothing, or no speculation) commits one token a step, and neither raises nor
		// clears stuck.
		st := stuckTest{judge: hasDr && drafted > 0, running: running, requests: true}
		if se.commitSample(srcDecode, s.Time, commit, st) {
			se.countCommit(s, commit, running)
			if steps, ok := s.Get(sample.Steps); ok && steps > 0 {
				se.pooledTok += commit * steps
				se.pooledSteps += steps
			}
			if v, ok := s.Get(sample.AcceptRate); ok {
				se.cur.acceptRate, se.cur.has = v, se.cur.has|curAcceptRate
			} else if hasAcc && hasDr && drafted > 0 {
				se.cur.acceptRate, se.cur.has = acc/drafted, se.cur.has|curAcceptRate
			}
		}
	}
	if !se.takePoints(s) {
		return // the other source gives this series' steps
	}
	p := point{t: s.Time, running: running, commit: 1, hasCommit: true, tps: math.NaN()}
	if hasCommit {
		p.commit = commit
	}
	p.ctx, p.hasCtx = s.Get(sample.Context)
	p.step, _ = s.Get(sample.StepSeconds)
	if steps, ok := s.Get(sample.Steps); ok && steps > 0 && hasDr {
		p.width, p.hasWidth = drafted/steps, true
	}
	if v, ok := s.Get(sample.GenTPS); ok {
		p.tps = v
	} else if p.step > 0 {
		p.tps = p.commit / p.step
	}
	// A request that ran beside others shared its steps with contexts it does not name: its
	// step is not the step of its own context, so it stays out of the fit.
	p.shared = running > 1
	se.learn.skipped.Count(p.idle, p.hasCtx, p.step, p.shared)
	se.apply(&p)
}

// startRequests switches a series to per-request samples on the first one. A request's step
// is a mean over its dozens of verify steps: the per-step jitter, multiplicative, averages out,
// and what differs between requests (how many tokens their steps verified) adds milliseconds
// rather than scaling them, so the fit weighs requests equally (ordinary least squares).
func (se *Series) startRequests() {
	if se.perRequest {
		return
	}
	se.perRequest = true
	if se.fit.N() == 0 {
		o := se.opts.Fit
		o.AbsoluteNoise = true
		se.fit = estimate.NewRLS(o)
	}
}

// requestWarmup is the fit's warm-up in requests: each is worth dozens of interval lines.
const requestWarmup = 8

// warmup is the number of points before the fit's predictions are used.
func (se *Series) warmup() int {
	if se.perRequest {
		return requestWarmup
	}
	return fitWarmup
}

// extrapolates reports whether ctx lies outside the contexts the fit has learned (with
// rangeMargin). Requests jump between contexts, and a long prompt after short ones would
// otherwise be judged, and kept from the fit, on an extrapolated slope.
func (se *Series) extrapolates(ctx float64) bool {
	return se.perRequest && (ctx < se.lo/rangeMargin || ctx > se.hi*rangeMargin)
}

// llamaStatistics reports a llama.cpp common_speculative statistics sample (totals, or deltas
// of them): its mean is per drafting step, never a commit length, and the requests carry the
// figures; only its per-position rates serve, where no request states them.
func llamaStatistics(s *sample.Sample) bool {
	return s.Engine == sample.EngineLlamaCpp && s.Source == sample.SourceLog && s.Kind == sample.KindSpec &&
		s.Event != sample.EventSummary
}

// widthForget weighs the width fit's samples like a rolling window of a few hundred requests.
const widthForget = 0.995

// predictStep is the step the model expects for p: from context alone, or, where the draft
// tokens a step verifies (u) have varied by a token or more (n-gram drafting: 0 to 64), as
// a + b·context + c·u + d·u·context: the extra tokens cost c each, and attend to the context
// at d per token, less than a one-token step's b. On the real engine's n-gram runs this
// predicts each request's step within 3 to 6 %; a + c·u + b·(1+u)·context, which charges the
// extra tokens a one-token step's b, was 11 to 14 % off and predicted tok/s 3 to 4 % low.
func (se *Series) predictStep(p *point) float64 {
	if f, ok := se.widthFit(); ok && p.hasWidth {
		if st := f.Predict(p.ctx, p.width); st > 0 {
			return st
		}
	}
	return se.fit.Predict(p.ctx)
}

// widthFit is the width fit when it is in use: warm, and u has varied by a token or more.
func (se *Series) widthFit() (estimate.BilinearFit, bool) {
	if se.width.N() < se.warmup() || se.width.USpread() < 1 {
		return estimate.BilinearFit{}, false
	}
	return se.width.Fit()
}
