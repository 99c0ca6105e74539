package parse

import (
	"github.com/specwatch/specwatch/parse/internal/llama"
	"github.com/specwatch/specwatch/sample"
)

// llamaJoin is Stream's llama.cpp state: the requests whose lines are being joined (keyed by
// host, unit, container, namespace, pod, slot and task) and each implementation's previous
// statistics (parse/internal/llama has both).
type llamaJoin struct {
	req      llama.Join
	deltas   llama.Deltas
	key      []byte
	unusable int64 // finished requests without a verify step
	resets   int64 // statistics counters that went down
}

// joinLlama is Resolve's hook for llama.cpp's samples. A request's release line becomes the
// request's sample (EventRequest) when its timings came before it; a statistics line after the
// first of its server and implementation becomes the change since (EventStatsDelta).
func (st *Stream) joinLlama(s *Record) {
	j, tag := &st.llama, &s.llama
	if s.Why != "" || tag.line.Part == llama.PartNone && !tag.isSt && s.Event != sample.EventRestart {
		return
	}
	j.key = llama.Key(j.key[:0], s.Host, s.Unit, s.Container, s.Namespace, s.Pod)
	switch {
	case tag.line.Part != llama.PartNone:
		if r := j.req.Line(j.key, s.Time, &tag.line, s.PerPos[:s.NPos]); r != nil && !j.fill(r, s) {
			s.NPos = 0 // stays the release's part
		}
	case tag.isSt:
		switch j.deltas.Apply(j.key, &tag.stats, s.PerPos[:]) {
		case llama.First:
			return
		case llama.Reset:
			j.resets++
		}
		s.Event, s.NPos = sample.EventStatsDelta, tag.stats.NPos
		s.Set(sample.Accepted, tag.stats.AccTokens)
		s.Set(sample.Drafted, tag.stats.GenTokens)
	default: // the server (re)started
		j.deltas.Restart(j.key)
		j.req.Restart(j.key)
	}
}

// fill makes s the request's sample: steps, commit length, step time, decode rate and mean
// context over its verify steps (llama.Figures), accepted and drafted tokens (both 0 when it
// never drafted, so that "no drafts" is not "a broken drafter"), Running and its per-position
// list. false when the request made no verify step.
func (j *llamaJoin) fill(r *llama.Request, s *Record) bool {
	f, ok := r.Figures()
	if !ok {
		j.unusable++
		return false
	}
	s.ClearFields()
	s.llama = llamaTag{}
	s.Kind, s.Event, s.Engine = sample.KindDecode, sample.EventRequest, sample.EngineLlamaCpp
	s.Set(sample.Steps, f.Steps)
	s.Set(sample.Commit, f.Commit)
	s.Set(sample.StepSeconds, f.StepSeconds)
	s.Set(sample.GenTPS, f.GenTPS)
	if f.HasContext {
		s.Set(sample.Context, f.Context)
	}
	s.Set(sample.Accepted, r.Accepted) // 0 and 0 without an acceptance line
	s.Set(sample.Drafted, r.Drafted)
	if r.HasAccept {
		s.Set(sample.AcceptRate, r.Rate)
	}
	if r.Running > 0 {
		s.Set(sample.Running, float64(r.Running))
	}
	s.NPos = copy(s.PerPos[:], r.Pos[:r.NPos])
	return true
}

// Take fills s with the next finished llama.cpp request that no release line carried (see
// Flush), and reports whether there was one. Callers drain it after every Resolve, and after
// Flush: for st.Take(&s) { apply(&s) }. s's byte slices are valid until the next Resolve.
func (st *Stream) Take(s *Record) bool {
	for {
		r, ok := st.llama.req.Take()
		if !ok {
			return false
		}
		s.Reset()
		llama.SplitKey(r.Key, &s.Host, &s.Unit, &s.Container, &s.Namespace, &s.Pod)
		if s.Time = r.Time; s.Time == 0 {
			s.Time = st.lastTime
		}
		if st.llama.fill(r, s) {
			return true
		}
	}
}

// Flush hands to Take the finished llama.cpp requests whose latest line is at or before
// before (Unix ns) and whose release line has not come: math.MaxInt64 at the end of an input,
// a few seconds before now in a live stream (a build that prints no release line, or prints it
// before the timings). It returns how many.
func (st *Stream) Flush(before int64) int { return st.llama.req.Flush(before) }

// Pending says how many llama.cpp requests the stream holds (started, or finished and
// awaiting their release line) and how many wait for Take.
func (st *Stream) Pending() (held, ready int) { return st.llama.req.Pending() }

// JoinCounts are what the llama.cpp joins lost or could not use, for the daemon's counters.
type JoinCounts struct {
	Evicted  int64 // unfinished requests forgotten: more than llama.MaxPending at once
	Dropped  int64 // finished requests lost: Take not called before 16 more finished
	Unusable int64 // finished requests without a verify step (one token generated)
	Resets   int64 // statistics counters that went down: the server restarted
}

// JoinCounts returns the counts so far.
func (st *Stream) JoinCounts() JoinCounts {
	j := &st.llama
	return JoinCounts{j.req.Counts.Evicted, j.req.Counts.Dropped, j.unusable, j.resets}
}
