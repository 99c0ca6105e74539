package stamp

// Anchor places one input's since-start stamps (llama.cpp's "0.05.071.041 I ", --log-jsonl's
// "time") in time: they say how long after the engine started a line was written, never when.
//
//   - With an Origin (analyze: --start-time, or the file's modification time less the stamps'
//     span), a line is at Origin plus its time since the first run started (Clock: a restart
//     begins right at the previous line).
//   - Without it, a line is placed by its Arrival: at the first run's start plus its stamp,
//     the start being the tightest bound the lines so far give (no line arrives before it is
//     written, so the start is at most arrival minus stamp), never after its arrival and never
//     more than arrivalSlack before it (a backlog read at once, a restart the stamps did not
//     show: the line is then at its arrival, and the start moves up to it).
//
// Either way a since-start line never goes back before the one before it.
type Anchor struct {
	Clock     Clock
	Origin    int64 // µs, Unix
	HasOrigin bool
	Arrival   int64 // µs, when the entry being placed arrived; 0: unknown
	ByArrival int64 // lines placed by their arrival
	start     int64 // µs, the first run's start as arrivals bound it (no origin)
	started   bool
	last      int64 // µs, the latest time given to a since-start line (placed)
	placed    bool
}

// arrivalSlack is how far before its arrival a line may be placed by its stamp: more than a
// reader's longest wait (a second), so that ordinary polling never moves the start.
const arrivalSlack = 2_000_000 // µs

// Place resolves a PrecRelative stamp, or any other t as a stamp-less line at the latest stamp,
// to Unix µs in [lo, hi). anchored is false when neither Origin nor Arrival anchors it; ok is
// false when the stamp or the time it gives is out of range.
func (a *Anchor) Place(t *Stamp, lo, hi int64) (at int64, anchored, ok bool) {
	var elapsed int64
	if t.Prec == PrecRelative {
		m := t.Micros()
		if m < 0 || m > MaxSinceStart {
			return 0, false, false
		}
		elapsed = a.Clock.Add(m)
	} else {
		elapsed = a.Clock.Elapsed()
	}
	switch {
	case a.HasOrigin:
		at = a.Origin + elapsed
	case a.Arrival != 0:
		if guess := a.start + elapsed; !a.started || guess > a.Arrival || a.Arrival-guess > arrivalSlack {
			a.start, a.started = a.Arrival-elapsed, true
		}
		at = a.start + elapsed
		a.ByArrival++
	default:
		return 0, false, true
	}
	if a.placed {
		at = max(at, a.last)
	}
	if at < lo || at >= hi {
		return 0, true, false
	}
	a.last, a.placed = at, true
	return at, true, true
}
