package sim

import (
	"math/rand/v2"
	"time"

	"github.com/specwatch/specwatch/sim/enginelog"
	"github.com/specwatch/specwatch/sim/internal/noise"
)

// record is one line a rank will write: the values its text prints, and the truth behind it.
type record struct {
	enginelog.Record
	t         int64 // engine time, ns: what the line's own timestamp shows
	at        int64 // journal receive time, ns, whole microseconds
	afterIdle bool
	faults    FaultSet
	// a llama.cpp request's verify and drafting steps and mean context, for its Truth
	steps, drafts int
	meanCtx       float64
}

// rankSim simulates one series. It runs ahead of the writer one logging interval at a time and
// leaves the lines of that interval in pending.
type rankSim struct {
	svc    *Service
	svcIdx int
	id     int // index among all ranks of the scenario
	rank   string
	rankIx int
	series Series
	style  Style
	rng    *rand.Rand
	faults []Fault
	writer enginelog.Writer // how the rank's engine logs
	noise  noise.Process    // the process its noise comes from

	start, end     int64
	decodeInterval int
	statsInterval  int64

	now        int64
	lastLine   int64 // time of the previous decode/stats line: throughput divides by time since
	idleSince  bool  // the batch emptied since the previous line
	lastActive bool  // vLLM: the previous stats line reported activity
	started    bool
	restarts   int // Service.Restarts written so far
	done       bool

	running, queue []request
	arrival        int64
	script         int
	nextID         int
	promptTokens   int // admitted since the previous line
	iter           int64
	cumAcc         int64
	cumDraft       int64
	cumEmit        int64
	prefixHit      float64
	lastAt         int64
	llama          llamaServer // llama.cpp: slots and counters
	adaptiveOff    bool        // SGLang logged its adaptive steps at 0, TensorRT-LLM its gate (policy.go)
	prevStep       float64     // TensorRT-LLM: the previous iteration's step, its prev_device_step_time
	fp             passes      // Service.ForwardPass (fwdpass.go)

	pending []record
	head    int
}

func newRankSim(sc *Scenario, svcIdx, rankIx int) *rankSim {
	sv := &sc.Services[svcIdx]
	r := &rankSim{
		svc: sv, svcIdx: svcIdx, rank: sv.Ranks[rankIx], rankIx: rankIx,
		style:          sv.Style,
		rng:            rand.New(rand.NewPCG(sc.Seed, uint64(svcIdx)<<32|uint64(rankIx)+1)),
		start:          sc.Start.UnixNano(),
		decodeInterval: sc.DecodeInterval,
		statsInterval:  int64(sc.StatsInterval),
	}
	r.writer = enginelog.Writer{Engine: sv.Engine, Style: sv.Style, Prefix: sv.Prefix, Color: sv.Color,
		Rank: r.rank, World: len(sv.Ranks), PID: sv.PID + rankIx, KVTokens: sv.KVTokens, DraftLen: sv.Acceptance.DraftLen,
		DecodeInterval: sc.DecodeInterval}
	if sv.Engine == LlamaCpp {
		r.writer.Started = time.Unix(0, r.start-int64(llamaBoot)).In(sc.Start.Location())
		r.writer.JSONL, r.writer.Drafter = sv.LlamaCpp.JSONL, sv.LlamaCpp.drafter()
		r.llama.init(sv.Workload.Concurrency)
	}
	r.noise = noise.Process{Writer: &r.writer, Host: sv.Host, PID: sv.PID, Rank: rankIx}
	r.series = Series{Host: sv.Host, Unit: sv.Unit, Engine: sv.Engine, Rank: r.rank}
	r.fp.on = sc.OnPass
	r.end = r.start + int64(sc.Duration)
	r.faults = faultsFor(sv.Faults, r.rank)
	r.now, r.lastLine = r.start, r.start
	r.arrival = r.nextArrival(r.start)
	// The first random request comes sooner than a typical gap, so that short runs start busy.
	if len(sv.Workload.Script) == 0 && sv.Workload.ArrivalMean > 0 {
		r.arrival = r.start + int64(r.rng.ExpFloat64()*float64(sv.Workload.ArrivalMean)/4)
	}
	r.prefixHit = 20 + 40*r.rng.Float64()
	return r
}

// next returns the rank's next record, simulating ahead as needed; nil when the rank is done.
func (r *rankSim) next() *record {
	for r.head == len(r.pending) {
		if r.done {
			return nil
		}
		r.pending, r.head = r.pending[:0], 0
		r.advance()
	}
	return &r.pending[r.head]
}

func (r *rankSim) pop() { r.head++ }

// emit appends a record at engine time t. Lines written together are a few microseconds apart,
// and journald's receive time trails the engine's clock by up to a millisecond.
func (r *rankSim) emit(kind LineKind, t int64, e *effects) *record {
	if e != nil && e.silent {
		return &record{} // written nowhere
	}
	at := (t + 80_000 + r.rng.Int64N(800_000)) / 1000 * 1000
	at = max(at, r.lastAt+1000)
	r.lastAt = at
	r.pending = append(r.pending, record{t: t, at: at})
	rec := &r.pending[len(r.pending)-1]
	// The hit rate drifts once per vLLM interval, before the interval's lines are emitted.
	rec.Kind, rec.PrefixHit = kind, r.prefixHit
	if e != nil {
		rec.faults, rec.Renamed = e.set, e.format
	}
	return rec
}

func (r *rankSim) advance() {
	if !r.started {
		r.started = true
		if r.svc.StartupLines && r.svc.Engine == SGLang {
			r.emit(LineStartup, r.start+int64(r.rankIx+1)*int64(time.Millisecond), nil)
			r.emit(LineStartup, r.start+int64(r.rankIx+2)*int64(time.Millisecond), nil).Sub = 1
			return
		}
		if r.svc.StartupLines && r.svc.Engine == LlamaCpp {
			r.llamaStartup()
			return
		}
	}
	if r.restartDue() {
		return
	}
	switch r.svc.Engine {
	case VLLM:
		r.statsStep()
	case LlamaCpp:
		r.llamaStep()
	default:
		r.decodeStep()
	}
}

// offset is t relative to the scenario start, for fault windows.
func (r *rankSim) offset(t int64) time.Duration { return time.Duration(t - r.start) }

// finish removes the requests that are done and retracts one when the KV pool is full (SGLang
// frees memory by sending the longest request back to the queue, to be prefilled again).
func (r *rankSim) finish(t int64) {
	maxCtx := r.svc.Workload.MaxContext
	kept := r.running[:0]
	for _, q := range r.running {
		if q.finished(maxCtx) {
			continue
		}
		kept = append(kept, q)
	}
	r.running = kept
	if r.svc.Engine != SGLang || len(r.running) < 2 || r.contextTokens() < r.svc.KVTokens*97/100 {
		return
	}
	longest := 0
	for i := range r.running {
		if r.running[i].context() > r.running[longest].context() {
			longest = i
		}
	}
	q := r.running[longest]
	r.running = append(r.running[:longest], r.running[longest+1:]...)
	r.queue = append(r.queue, request{})
	copy(r.queue[1:], r.queue)
	r.queue[0] = q
	e := effectsAt(r.faults, r.offset(t))
	rec := r.emit(LineRetract, t+90_000, &e)
	rec.Retracted, rec.Running, rec.Ctx = 1, len(r.running), r.contextTokens()
}

// restartDue writes the start-up lines of the next of Service.Restarts once the rank's clock
// has passed it.
func (r *rankSim) restartDue() bool {
	rs := r.svc.Restarts
	if r.restarts >= len(rs) || r.now < r.start+int64(rs[r.restarts]) || r.svc.Engine != SGLang {
		return false
	}
	t := max(r.now, r.start+int64(rs[r.restarts]))
	r.restarts++
	r.emit(LineStartup, t+int64(time.Millisecond), nil)
	r.emit(LineStartup, t+2*int64(time.Millisecond), nil).Sub = 1
	return true
}
