package fwdpass

import "github.com/specwatch/specwatch/sample"

// Message kinds, the values of the kind label.
const (
	msgDecode    = iota // decode requests only
	msgPrefill          // prefill requests only
	msgMixed            // prefill and decode requests in one pass (chunked prefill)
	msgHeartbeat        // no request: the idle heartbeat
	numKinds
)

var kindNames = [numKinds]string{"decode", "prefill", "mixed", "heartbeat"}

func kindOf(m *Message) int {
	switch p, d := m.Scheduled.NumPrefill > 0, m.Scheduled.NumDecode > 0; {
	case p && d:
		return msgMixed
	case p:
		return msgPrefill
	case d:
		return msgDecode
	}
	return msgHeartbeat
}

// fill resets x to the rank's series key at time now.
func (s *Source) fill(r *rank, m *Message, now int64, x *sample.Sample) {
	x.Reset()
	x.Engine, x.Source, x.Time = r.engine, sample.SourceForwardPass, now
	x.Host, x.Unit, x.Container, x.Namespace, x.Pod = r.host, r.unit, r.ctr, r.ns, r.pod
	x.Rank = r.rankLabel(m.DPRank)
}

// rankLabel is the series rank of DP rank dp (the message's own: an endpoint named for one
// rank that carries another's is the engine's word), cached for the rank's next message.
func (r *rank) rankLabel(dp int64) []byte {
	if dp != r.rankDP {
		name, ok := r.labels[int(dp)]
		if !ok {
			name = RankLabel(r.engine, int(dp), r.topo)
		}
		r.rankDP, r.rankName = dp, []byte(name)
	}
	return r.rankName
}

// iteration sets the fields of one forward pass: a KindDecode sample when it ran decode
// requests only, else KindPrefill (docs/formats.md says why a pass with a prefill is kept
// apart from the decode step model).
func iteration(m *Message, x *sample.Sample) {
	sc, q := &m.Scheduled, &m.Queued
	x.Kind, x.Event = sample.KindDecode, sample.EventIteration
	if sc.NumPrefill > 0 {
		x.Kind = sample.KindPrefill
		x.Set(sample.NewSeqs, sc.NumPrefill)
		x.Set(sample.NewTokens, sc.SumPrefillTokens)
		x.Set(sample.CachedTokens, sc.SumPrefillKV)
	}
	if m.WallTime > 0 {
		x.Set(sample.StepSeconds, m.WallTime)
	}
	x.Set(sample.Running, sc.NumDecode)
	x.Set(sample.Context, sc.SumDecodeKV)
	x.Set(sample.Queue, q.NumPrefill+q.NumDecode)
}

// event applies the EventRestart sample of a publisher that restarted.
func (s *Source) event(r *rank, m *Message, now int64) {
	x := &r.s
	s.fill(r, m, now, x)
	x.Kind, x.Event = sample.KindEvent, sample.EventRestart
	s.apply(x)
}

func (s *Source) apply(x *sample.Sample) {
	s.sinkMu.Lock()
	s.o.Sink.ApplySample(sample.Matched, x)
	s.sinkMu.Unlock()
}
