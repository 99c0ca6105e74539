package parse

// Since-start stamps (llama.cpp's "0.05.071.041 I ", --log-jsonl's "time") say how long after
// the engine started a line was written, never when: Stream anchors them. An entry's own time
// (a journal entry's, a container runtime's record) always wins over them. Otherwise:
//
//   - With StreamOptions.Origin (analyze: --start-time, or the file's modification time less
//     the stamps' span), a line is at Origin plus its time since the first run started
//     (Clock: a restart begins right at the previous line).
//   - Without it, a line is placed by its arrival (ResolveArrived: run's file sources, analyze's
//     standard input): at the first run's start plus its stamp, the start being the tightest
//     bound the lines so far give (no line arrives before it is written, so the start is at
//     most arrival minus stamp), never after its arrival and never more than arrivalSlack
//     before it (a backlog read at once, a restart the stamps did not show: the line is
//     then at its arrival, and the start moves up to it).
//
// Either way a since-start line never goes back before the one before it.
type sinceStart struct {
	clock     Clock
	origin    int64 // µs, StreamOptions.Origin
	hasOrigin bool
	start     int64 // µs, the first run's start as arrivals bound it (no origin)
	started   bool
	arrival   int64 // µs, the entry being resolved (ResolveArrived); 0: unknown
	last      int64 // µs, the latest time given to a since-start line (placed)
	placed    bool
	byArrival int64 // lines placed by their arrival
}

// arrivalSlack is how far before its arrival a line may be placed by its stamp: more than a
// reader's longest wait (a second), so that ordinary polling never moves the start.
const arrivalSlack = 2_000_000 // µs

// ResolveArrived is Resolve for an entry that arrived at arrival (Unix µs; 0: unknown): a line
// whose only stamp counts from the engine's start is placed by it when the stream has no
// Origin.
func (st *Stream) ResolveArrived(entryTime, arrival int64, host, unit []byte, s *Sample) bool {
	st.since.arrival = arrival
	ok := st.Resolve(entryTime, host, unit, s)
	st.since.arrival = 0
	return ok
}

// Pass takes the since-start stamp (µs) of a line that produced no sample, so that a restart
// is seen on whichever line shows it and the span counts every line, as analyze's first look
// at the file (Clock over every line) counted it.
func (st *Stream) Pass(micros int64) {
	if micros >= 0 && micros <= MaxSinceStart {
		st.since.clock.Add(micros)
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
	return SinceStartStats{Lines: st.since.clock.Lines, Restarts: st.since.clock.Restarts, ByArrival: st.since.byArrival}
}

// sinceStartTime resolves a PrecRelative stamp, or a stamp-less line of an input whose
// since-start stamps have begun (at the latest stamp). false: outside the representable times.
func (st *Stream) sinceStartTime(t *Stamp) (int64, bool) {
	ss := &st.since
	var elapsed int64
	if t.Prec == PrecRelative {
		m := t.Micros()
		if m < 0 || m > MaxSinceStart {
			return st.lastTime, false
		}
		elapsed = ss.clock.Add(m)
	} else {
		elapsed = ss.clock.Elapsed()
	}
	var at int64
	switch {
	case ss.hasOrigin:
		at = ss.origin + elapsed
	case ss.arrival != 0:
		if guess := ss.start + elapsed; !ss.started || guess > ss.arrival || ss.arrival-guess > arrivalSlack {
			ss.start, ss.started = ss.arrival-elapsed, true
		}
		at = ss.start + elapsed
		ss.byArrival++
	default:
		return st.lastTime, true // nothing to anchor it to: as a line without a stamp
	}
	if ss.placed {
		at = max(at, ss.last)
	}
	if at < minMicros || at >= maxMicros {
		return st.lastTime, false
	}
	ss.last, ss.placed = at, true
	return at * 1000, true
}
