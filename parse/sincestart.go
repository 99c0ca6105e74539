package parse

// Since-start stamps say how long after the engine started a line was written, never when:
// Stream anchors them (stamp.Anchor has the rules) at StreamOptions.Origin or, without it, by
// the line's arrival (ResolveArrived: run's file sources, analyze's standard input). An entry's
// own time (a journal entry's, a container runtime's record) always wins over them.

// ResolveArrived is Resolve for an entry that arrived at arrival (Unix µs; 0: unknown): a line
// whose only stamp counts from the engine's start is placed by it when the stream has no
// Origin.
func (st *Stream) ResolveArrived(entryTime, arrival int64, host, unit []byte, s *Record) bool {
	st.since.Arrival = arrival
	ok := st.Resolve(entryTime, host, unit, s)
	st.since.Arrival = 0
	return ok
}

// Pass takes the since-start stamp (µs) of a line that produced no sample, so that a restart
// is seen on whichever line shows it and the span counts every line, as analyze's first look
// at the file (Clock over every line) counted it.
func (st *Stream) Pass(micros int64) {
	if micros >= 0 && micros <= MaxSinceStart {
		st.since.Clock.Add(micros)
	}
}

// SinceStartStats says how an input's since-start stamps were anchored, for analyze's note.
type SinceStartStats struct {
	Lines     int64 // lines with a since-start stamp (samples and the rest)
	Restarts  int64 // the stamps went back: the engine restarted
	ByArrival int64 // samples placed by their arrival (no Origin)
}

// SinceStart returns the counts so far.
func (st *Stream) SinceStart() SinceStartStats {
	return SinceStartStats{Lines: st.since.Clock.Lines, Restarts: st.since.Clock.Restarts, ByArrival: st.since.ByArrival}
}

// sinceStartTime resolves a PrecRelative stamp, or a stamp-less line of an input whose
// since-start stamps have begun (at the latest stamp). false: outside the representable times.
func (st *Stream) sinceStartTime(t *Stamp) (int64, bool) {
	at, anchored, ok := st.since.Place(t, minMicros, maxMicros)
	if !ok || !anchored {
		return st.lastTime, ok // unanchored: as a line without a stamp
	}
	return at * 1000, true
}
