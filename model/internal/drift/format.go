package drift

// Format is format_drift's test: the share of malformed lines among the last lines that
// carried an engine marker. A version upgrade that renames a field turns every line malformed
// at once; damage in transit stays a trickle. It is a value type and allocates nothing.
type Format struct {
	ring     [4]uint64 // bit per line, 1 = malformed; up to 256 lines
	n, bad   int
	pos      int
	size     int
	fraction float64
	run      int // lines parsed since the last malformed one
}

// NewFormat returns the test over the last lines (at most 256) that raises at fraction.
func NewFormat(lines int, fraction float64) Format {
	return Format{size: min(lines, 256), fraction: fraction}
}

// Retune takes a new fraction; the lines seen stay (their number shapes the ring).
func (d *Format) Retune(fraction float64) { d.fraction = fraction }

// minDriftLines keeps a handful of damaged lines at start-up from raising format_drift.
const minDriftLines = 10

// cleanRun is how many lines in a row must parse before the malformed ones in the ring are
// forgotten: a format that changed breaks every line of its kind, so such a run says the
// cause is gone (the build was fixed), where waiting for the ring to drain took 100 lines,
// hours of a quiet server's requests.
func (d *Format) cleanRun() int { return max(minDriftLines, d.size/5) }

// Add records one marker line, malformed or not.
func (d *Format) Add(malformed bool) Event {
	w, b := d.pos/64, uint(d.pos%64)
	if d.n == d.size && d.ring[w]&(1<<b) != 0 {
		d.bad--
	}
	if malformed {
		d.ring[w] |= 1 << b
		d.bad++
		d.run = 0
	} else {
		d.ring[w] &^= 1 << b
		d.run++
	}
	// Every sample passes here: the ring wraps by a comparison and a clean window skips the
	// float division, instead of an integer modulo (a 64-bit idiv, tens of cycles) and a
	// division per sample: 31 → 28 M of analyze's instructions on the chatty corpus
	// (cachegrind; the idiv's latency is not in that count).
	if d.pos++; d.pos >= d.size {
		d.pos = 0
	}
	d.n = min(d.n+1, d.size)
	if d.bad > 0 && d.run >= d.cleanRun() {
		d.ring, d.bad = [4]uint64{}, 0
	}
	frac := 0.0
	if d.bad > 0 {
		frac = float64(d.bad) / float64(d.n)
	}
	switch {
	case d.bad >= minDriftLines && frac >= d.fraction:
		return Raise
	case frac < d.fraction/4:
		return Clear
	}
	return None
}

// Counts are the malformed lines and all lines in the ring.
func (d *Format) Counts() (bad, n int) { return d.bad, d.n }
