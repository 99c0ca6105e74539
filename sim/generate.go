package sim

import (
	"bufio"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"time"

	"github.com/specwatch/specwatch/sim/internal/mergeheap"
	"github.com/specwatch/specwatch/sim/internal/noise"
	"github.com/specwatch/specwatch/sim/internal/transport"
)

// Generate writes the scenario's log stream to w in time order and calls truth, if not nil, with
// the ground truth of every engine line as it is written. Output is buffered, so the line may not
// have reached w when truth runs: Truth.Record says where it will be. Generate returns what it
// wrote; the error is a problem with the scenario or the first write error.
func Generate(s Scenario, w io.Writer, truth func(Truth)) (Summary, error) {
	sc, err := s.normalize()
	if err != nil {
		return Summary{}, err
	}
	g := newGenerator(&sc, w, truth)
	g.run()
	if err := g.bw.Flush(); err != nil && g.err == nil {
		g.err = err
	}
	if g.sum.Lines > 0 {
		g.sum.First, g.sum.Last = time.Unix(0, g.firstAt).In(g.loc), time.Unix(0, g.lastAt).In(g.loc)
	}
	return g.sum, g.err
}

// generator merges the ranks' lines and the noise by receive time and writes them.
type generator struct {
	sc      *Scenario
	loc     *time.Location
	ranks   []*rankSim
	heap    mergeheap.Heap
	seq     uint64
	bw      *bufio.Writer
	err     error
	tp      transport.Writer
	truth   func(Truth)
	nrng    *rand.Rand    // noise choices
	weights noise.Weights // of the noise kinds
	ratio   float64       // noise records owed per engine record
	credit  float64

	origins []transport.Origin   // per service
	others  [][]transport.Origin // per service: other units on its host
	nginx   transport.Origin

	msg, line       []byte
	sum             Summary
	firstAt, lastAt int64
}

func newGenerator(sc *Scenario, w io.Writer, truth func(Truth)) *generator {
	g := &generator{
		sc: sc, loc: sc.Start.Location(), truth: truth,
		bw:   bufio.NewWriterSize(w, 256<<10),
		nrng: rand.New(rand.NewPCG(sc.Seed, 0x6e6f697365)),
		msg:  make([]byte, 0, 1024), line: make([]byte, 0, 4096),
	}
	g.ratio = sc.Noise / (1 - sc.Noise)
	g.weights = sc.NoiseMix.weights()
	ids := rand.New(rand.NewPCG(sc.Seed, 0x6a6f75726e616c))
	g.tp = transport.Writer{Format: sc.Format, Loc: g.loc, SeqnumID: hexID(ids)}
	type hostIDs struct {
		machine, boot string
		bootNs        int64
	}
	hosts := map[string]hostIDs{}
	start := sc.Start.UnixNano()
	for i := range sc.Services {
		sv := &sc.Services[i]
		h, ok := hosts[sv.Host]
		if !ok {
			up := time.Duration(2+ids.IntN(40))*24*time.Hour + time.Duration(ids.Int64N(int64(time.Hour)))
			h = hostIDs{hexID(ids), hexID(ids), start - int64(up)}
			hosts[sv.Host] = h
		}
		g.origins = append(g.origins, transport.Origin{Host: sv.Host, Unit: sv.Unit, Ident: sv.Identifier,
			Compose: sv.Compose, PID: sv.PID, Transport: "stdout", Machine: h.machine, Boot: h.boot,
			BootNs: h.bootNs})
		var oth []transport.Origin
		for _, o := range noise.Others {
			tr := "syslog"
			if o.Ident == "kernel" {
				tr = "kernel"
			}
			oth = append(oth, transport.Origin{Host: sv.Host, Unit: o.Unit, Ident: o.Ident, PID: o.PID,
				Transport: tr, Machine: h.machine, Boot: h.boot, BootNs: h.bootNs})
		}
		g.others = append(g.others, oth)
		g.tp.Width = max(g.tp.Width, len(sv.Compose)+3)
		for j := range sv.Ranks {
			r := newRankSim(sc, i, j)
			r.id = len(g.ranks)
			g.ranks = append(g.ranks, r)
		}
	}
	g.nginx = g.origins[0]
	g.nginx.Compose = "nginx"
	if sc.Noise > 0 {
		g.tp.Width = max(g.tp.Width, len("nginx")+3)
	}
	g.sum.Series = make([]SeriesLines, len(g.ranks))
	for i, r := range g.ranks {
		g.sum.Series[i].Series = r.series
	}
	return g
}

func hexID(rng *rand.Rand) string {
	var b [16]byte
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return hex.EncodeToString(b[:])
}

func (g *generator) full() bool {
	return g.err != nil || (g.sc.MaxLines > 0 && g.sum.Lines >= g.sc.MaxLines)
}

func (g *generator) push(it mergeheap.Item) {
	g.seq++
	it.Seq = g.seq
	g.heap.Push(it)
}

func (g *generator) run() {
	for i, r := range g.ranks {
		if rec := r.next(); rec != nil {
			g.push(mergeheap.Item{At: rec.at, Rank: int32(i)})
		}
	}
	for len(g.heap) > 0 && !g.full() {
		it := g.heap.Pop()
		r := g.ranks[it.Rank]
		if it.Noise {
			g.writeNoise(r, it)
			continue
		}
		rec := r.next()
		at := rec.at
		g.writeRecord(r, rec)
		r.pop()
		if nx := r.next(); nx != nil {
			g.push(mergeheap.Item{At: nx.at, Rank: it.Rank})
		}
		g.owe(it.Rank, at)
	}
}

// owe schedules the noise that keeps the noise fraction at Scenario.Noise: each engine record
// earns ratio noise records, spent on items of one or more lines within the next two seconds.
func (g *generator) owe(rank int32, at int64) {
	if g.ratio == 0 {
		return
	}
	g.credit += g.ratio
	for g.credit > 0 {
		k := noise.Pick(g.nrng, g.sc.Format, &g.weights)
		g.credit -= float64(noise.Lines(k, g.ranks[rank].svc.Engine))
		delay := (1 + g.nrng.Int64N(int64(2*time.Second)/1000)) * 1000
		g.push(mergeheap.Item{At: at + delay, Rank: rank, Noise: true, Kind: k, Pick: g.nrng.Uint32()})
	}
}

func (g *generator) writeNoise(r *rankSim, it mergeheap.Item) {
	o := &g.origins[r.svcIdx]
	if it.Kind == noise.Other {
		if g.sc.Format.Journal() {
			o = &g.others[r.svcIdx][it.Pick%uint32(len(noise.Others))]
		} else {
			o = &g.nginx
		}
	}
	t := time.Unix(0, it.At).In(g.loc)
	g.msg = noise.Append(g.msg[:0], &r.noise, it.Kind, int(it.Line), it.Pick, t, g.sc.Format)
	g.write(o, it.At)
	g.sum.NoiseLines++
	if int(it.Line)+1 < noise.Lines(it.Kind, r.svc.Engine) {
		it.Line++
		it.At += 1000
		g.push(it)
	}
}

func (g *generator) writeRecord(r *rankSim, rec *record) {
	g.msg = r.writer.AppendLine(g.msg[:0], time.Unix(0, rec.t).In(g.loc), &rec.Record)
	g.write(&g.origins[r.svcIdx], rec.at)
	g.sum.EngineLines++
	g.sum.Series[r.id].Lines++
	if g.truth == nil {
		return
	}
	g.truth(Truth{
		Record: g.sum.Lines, Line: rec.Kind, Series: r.series,
		Time: time.Unix(0, rec.t).In(g.loc), Logged: time.Unix(0, rec.at).In(g.loc),
		Context: rec.Ctx, Running: rec.Running, Queue: rec.Queue,
		StepSeconds: rec.Step, CommitLen: rec.Commit, TPS: rec.TPS,
		Steps: rec.steps, Drafts: rec.drafts, MeanContext: rec.meanCtx,
		AfterIdle: rec.afterIdle, Faults: rec.faults,
	})
}

func (g *generator) write(o *transport.Origin, at int64) {
	g.line = g.tp.AppendEntry(g.line[:0], o, at, g.msg)
	if _, err := g.bw.Write(g.line); err != nil && g.err == nil {
		g.err = err
	}
	g.sum.Lines++
	if g.sum.Lines == 1 {
		g.firstAt = at
	}
	g.lastAt = at
}
