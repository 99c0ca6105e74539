package model

import (
	"math"

	"github.com/specwatch/specwatch/model/internal/estimate"
	"github.com/specwatch/specwatch/model/internal/events"
	"github.com/specwatch/specwatch/model/internal/fusion"
	"github.com/specwatch/specwatch/model/internal/idle"
	"github.com/specwatch/specwatch/model/internal/logclock"
	"github.com/specwatch/specwatch/model/internal/position"
	"github.com/specwatch/specwatch/model/internal/throughput"
	"github.com/specwatch/specwatch/model/internal/vllmjoin"
	"github.com/specwatch/specwatch/model/internal/window"
	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/sample"
)

// Series is the model of one rank of one engine process on one host. It is updated by one
// goroutine (the Set's owner) and allocates nothing per sample once created.
type Series struct {
	id     int
	key    string // in the Set's map
	labels Labels
	opts   *Options
	// kvContext is true for vLLM and TensorRT-LLM, whose only context regressor is KV cache
	// usage (in percent).
	kvContext bool

	samples     int64
	first, last int64 // Unix ns, once timed
	timed       bool  // a sample with a time was seen
	heard       int64 // the daemon's clock (Unix ns) when the latest sample arrived live; 0 offline (heard.go)
	clock       logclock.Clock
	clockWarned bool // Heard reported the log clock's offset

	// Commit length, from one source only (the first line kind that carried it), so that
	// SGLang's accept len and the same build's avg_commit_len are not counted twice.
	commitSrc   uint8
	pointSrc    uint8 // which lines drive the fit: the first kind, or a logged step (learn.go)
	commitQ     estimate.Quantiles
	short, long estimate.EWMA
	// pooledTok / pooledSteps is commit length per verify step over the samples that state
	// their steps (llama.cpp requests), beside commitQ's mean per sample.
	pooledTok, pooledSteps float64
	perRequest             bool         // fed per-request samples (request.go)
	committed              commitCounts // committed tokens and verify steps, for the exporter (commitcount.go)

	fit estimate.RLS
	ref estimate.TheilSen
	// width adds the tokens each verify step checks to the fit (request.go): the prediction
	// where they vary, as n-gram drafting's do.
	width  estimate.Bilinear
	lo, hi float64 // context range the live fit has learned

	idle    idle.Detector
	idleEnv idle.Env // what the idle test reads of the series (idle.go)
	learn   learned
	pending vllmjoin.Pending // an engine line waiting for its SpecDecoding line (vllm.go)
	cur     current

	tps throughput.Stats
	win window.Pair

	det  detectors                 // one per anomaly kind (detector.go)
	dets [NumAnomalyKinds]detector // the same, by kind
	in   *obs                      // the observation being handed to one

	anomalies []Anomaly
	active    [NumAnomalyKinds]int
	raised    [NumAnomalyKinds]int64

	hist      history
	kindCount [schema.NumSampleKinds]int64
	points    int64

	fus    fusion.Choice // which source gives which figure (fusion.go)
	pos    position.Acc  // acceptance per draft position (position.go)
	posReq bool          // pos holds per-request lists, which statistics lines never replace
	drafts position.DraftSize
	events events.List // restarts, speculation switched with the batch (fusion.go, specoff.go)
	expiry expiry      // set by Tick (expire.go)
	passes passBin     // forward passes gathered into the next point (passes.go)
}

// current holds the latest value of each figure, for gauges and the status page.
type current struct {
	t                                       int64
	commit, acceptRate, depth, ctx, running float64
	step, tps, predTPS, predStep            float64
	has                                     uint16
}

const (
	curCommit uint16 = 1 << iota
	curAcceptRate
	curDepth
	curCtx
	curRunning
	curStep
	curTPS
	curPred
)

// point is one decode observation after derivation: what the fit and detectors consume.
type point struct {
	t                         int64
	ctx, running, commit, tps float64
	step                      float64
	hasCtx, hasCommit         bool
	idle                      bool
	width                     float64 // draft tokens verified per step (llama.cpp requests)
	hasWidth                  bool
	shared                    bool // a request that ran beside others: out of the fit (request.go)
}

func newSeries(l Labels, opts *Options, fitScratch *[]float64) *Series {
	se := &Series{
		labels:    l,
		opts:      opts,
		kvContext: l.Engine == sample.EngineVLLM.String() || l.Engine == sample.EngineTRTLLM.String(),
		commitQ:   estimate.NewQuantiles(estimate.QuantilesOptions{}),
		short:     estimate.NewEWMA(opts.ShortHalfLife),
		long:      estimate.NewEWMA(opts.LongHalfLife),
		fit:       estimate.NewRLS(opts.Fit),
		width:     estimate.NewBilinear(widthForget),
		ref:       estimate.NewTheilSen(estimate.TheilSenOptions{Scratch: fitScratch}),
		win:       window.New(opts.AttributionWindow),
		hist:      newHistory(historyCapacity),
		fus:       fusion.New(),
	}
	for k := range se.active {
		se.active[k] = -1
	}
	se.wire(opts)
	return se
}

// observe applies one matched, resolved sample.
func (se *Series) observe(s *sample.Sample) {
	se.samples++ // every matched line, a join's parts too: the input's count, per series
	if s.Event != sample.EventPart && int(s.Kind) < schema.NumSampleKinds {
		se.kindCount[s.Kind]++
	}
	// 0 is "no time known" (a stamp-less line before any other); any other time counts,
	// before 1970 too (a zero first and a max starting at 0 kept pre-1970 logs from moving last).
	if s.Time != 0 {
		if !se.timed {
			se.first, se.last, se.timed = s.Time, s.Time, true
		}
		se.first, se.last = min(se.first, s.Time), max(se.last, s.Time)
	}
	if s.Source == sample.SourceMetrics {
		se.heardMetrics(s.Time)
	}
	se.observeFormat(false, s.Time)
	if se.active[Stale] >= 0 {
		se.feed(Stale, se.at(obsSample, s.Time))
	}
	if s.Event == sample.EventPart {
		return
	}
	se.fus.See(s.Source)
	se.perPosition(s)
	if s.Event == sample.EventIteration {
		if s.Kind == sample.KindDecode {
			se.pass(s)
		}
		return
	}
	switch s.Kind {
	case sample.KindDecode:
		if s.Event == sample.EventRequest {
			se.request(s)
			return
		}
		if s.Engine == sample.EngineVLLM {
			se.vllmEngine(s)
			return
		}
		se.decode(s)
	case sample.KindSpec:
		if s.Event == sample.EventTotals || llamaStatistics(s) {
			return // cumulative, or per drafting step: not the current commit length
		}
		se.spec(s)
	case sample.KindEvent:
		se.event(s) // a restart the scrape source saw is listed (fusion.go)
		if s.Event == sample.EventDrafterInit || s.Event == sample.EventRestart {
			se.restarted(s.Time)
		}
	}
}

// observeMalformed counts a line that carried this series' marker but did not parse.
func (se *Series) observeMalformed(t int64) { se.observeFormat(true, t) }

// Commit sources.
const (
	srcNone uint8 = iota
	srcDecode
	srcKV
	srcSpec
)

// decode handles SGLang decode lines, DFLASH profile lines and key=value statistics.
func (se *Series) decode(s *sample.Sample) {
	p := point{t: s.Time}
	commit, hasCommit := s.Get(sample.Commit)
	running, hasRunning := s.Get(sample.Running)
	tps, hasTPS := s.Get(sample.GenTPS)
	step, hasStep := s.Get(sample.StepSeconds)
	src := srcKV
	if hasTPS {
		src = srcDecode
	}
	se.checkConsistency(s, commit, hasCommit)
	accepts := (hasCommit || s.Has(sample.AcceptRate)) && se.takeCommit(s)
	off := se.notDrafting(s, commit, hasCommit)
	if !hasRunning {
		running = se.cur.running
	}
	if (accepts || s.Has(sample.SpecSteps)) && running > 0 {
		se.specObserve(s.Time, running, !off)
	}
	if hasCommit && accepts && !off { // steps without drafts are no commit length
		st := stuckTest{judge: !hasRunning || running > 0, running: running}
		if !hasRunning {
			st.running = se.cur.running // the latest decode point's
		}
		if se.commitSample(src, s.Time, commit, st) {
			se.countCommit(s, commit, running)
		}
	}
	if v, ok := s.Get(sample.AcceptRate); ok && accepts {
		se.cur.acceptRate, se.cur.has = v, se.cur.has|curAcceptRate
	}
	if !se.takePoints(s) {
		return // the other source gives this series' steps
	}
	if hasRunning && running == 0 {
		se.idle.SawIdle()
		return // no decode ran in this interval
	}
	p.running = 1
	if hasRunning {
		p.running = running
	}
	p.commit, p.hasCommit = 1, true // without speculation every step commits one token
	switch trt := s.Engine == sample.EngineTRTLLM; {
	case hasCommit:
		p.commit = commit
	case trt && off:
	case trt && se.cur.has&curCommit != 0:
		// TensorRT-LLM's iteration line states no acceptance: its steps commit what its
		// counters say (the latest scrape; model/internal/fusion)
		p.commit = se.cur.commit
	case !hasTPS || s.Has(sample.AcceptRate):
		p.hasCommit = false
	}
	if v, ok := s.Get(sample.Context); ok {
		p.ctx, p.hasCtx = v, true
	} else if v, ok := s.Get(sample.KVUsage); ok && se.kvContext {
		p.ctx, p.hasCtx = 100*v, true // TensorRT-LLM's kv_cache_util: its context is KV in use, as vLLM's
	} else if se.cur.has&curCtx != 0 && s.Time-se.cur.t < 30e9 {
		p.ctx, p.hasCtx = se.cur.ctx, true // a profile line names no context: the last one holds
	}
	se.decodePoint(&p, s, hasStep, hasTPS, step, tps)
}

// commitSample feeds acceptance statistics and the stuck-drafter check from one source, and
// reports whether src is that source.
func (se *Series) commitSample(src uint8, t int64, c float64, st stuckTest) bool {
	if se.commitSrc == srcNone {
		se.commitSrc = src
	}
	if src != se.commitSrc {
		return false
	}
	se.cur.commit, se.cur.has = c, se.cur.has|curCommit
	se.commitQ.Add(c)
	se.short.Update(t, c)
	se.long.Update(t, c)
	if st.judge {
		se.stuckCheck(t, c <= 1.005, c, st)
	}
	se.acceptance(t, c)
	return true
}

// apply feeds one derived decode point to the fit, the throughput statistics, attribution
// windows and detectors.
func (se *Series) apply(p *point) {
	se.cur.t = p.t
	se.cur.running, se.cur.step, se.cur.tps = p.running, p.step, p.tps
	se.cur.has |= curRunning | curStep | curTPS
	if p.hasCtx {
		se.cur.ctx, se.cur.has = p.ctx, se.cur.has|curCtx
	}
	pred := math.NaN()
	if p.hasCtx && !p.shared && se.fit.N() >= se.warmup() {
		pred = se.predictStep(p)
	}
	se.hist.add(p, pred)
	se.points++
	if p.idle || !p.hasCtx || p.step <= 0 {
		return
	}
	if p.shared {
		se.tps.Add(p.tps, math.NaN()) // measured, but no prediction of a shared step
		return
	}
	judge := pred > 0 && !se.extrapolates(p.ctx)
	if pred > 0 {
		predTPS := p.commit * p.running / pred
		se.cur.predTPS, se.cur.predStep, se.cur.has = predTPS, pred, se.cur.has|curPred
		se.tps.Add(p.tps, predTPS)
		se.observeRegression(p)
		if judge {
			se.collapseCheck(p, predTPS)
		}
	} else {
		se.tps.Add(p.tps, math.NaN())
	}
	// A step more than twice the prediction is a collapse candidate, not something to learn,
	// until the collapse has lasted long enough to be the new normal.
	if !(judge && p.step > 2*pred) || se.collapseAge(p.t) > regressionRelearn {
		if se.fit.N() == 0 || p.ctx < se.lo {
			se.lo = p.ctx
		}
		se.hi = math.Max(se.hi, p.ctx)
		se.fit.Update(p.ctx, p.step)
		se.ref.Add(p.ctx, p.step)
		if p.hasWidth {
			se.width.Add(p.ctx, p.width, p.step)
		}
	}
	se.restartStep(p)
	if p.hasCommit {
		se.addWindow(p)
	}
	se.skewCheck(p.t)
}

// fitWarmup is the number of samples before the fit's predictions are used.
const fitWarmup = 20
