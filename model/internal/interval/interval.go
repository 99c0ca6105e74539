// Package interval infers how many decode steps an engine's statistics line covers (SGLang's
// --decode-log-interval) from the lines themselves, so that the model does not depend on the
// operator having kept the default or told specwatch otherwise.
//
// Between two lines of the same batch, the context (SGLang's #token) grows by what the
// interval generated: steps × commit length × running requests. The ratio
// Δcontext ÷ (commit × running) is therefore the interval, up to the rounding of the printed
// figures, on every pair of lines in which no request joined or left. Pairs in which one did
// give arbitrary ratios, so the interval is the value most pairs agree on (a majority vote),
// and only once enough of them have.
package interval

// MinVotes is the number of agreeing pairs (net of disagreeing ones) before an interval is
// reported: a handful of continuing lines, so that a few batch changes that happen to agree
// cannot set it.
const MinVotes = 8

// maxInterval bounds plausible intervals: SGLang's flag is an int, and a ratio beyond this is
// a batch change, not a cadence.
const maxInterval = 10000

// maxMargin caps the vote's margin, so that an engine restarted with another interval is
// followed after at most maxMargin + MinVotes pairs rather than after as many as it logged.
const maxMargin = 4 * MinVotes

// Learner is a majority vote over the ratios of consecutive lines. The zero value is ready;
// it is a value type and allocates nothing.
type Learner struct {
	cand    float64 // the candidate interval: the mean of the ratios that agreed with it
	sum     float64 // of those ratios
	n       int     // ratios in sum
	count   int     // the vote's margin for cand
	learned int     // 0 until a candidate has held MinVotes
	pairs   int     // pairs observed
}

// Observe records one pair of consecutive lines of a series in which the number of running
// requests did not change: the context grew by grown while the later line reports commit
// tokens per request per step.
func (l *Learner) Observe(grown, commit, running float64) {
	if !(grown > 0) || !(commit >= 1) || !(running >= 1) {
		return
	}
	r := grown / (commit * running)
	if !(r >= 0.5 && r <= maxInterval) { // NaN fails both
		return
	}
	l.pairs++
	switch {
	case l.count > 0 && agrees(r, l.cand):
		l.count = min(l.count+1, maxMargin)
		l.sum += r
		l.n++
		l.cand = l.sum / float64(l.n)
	case l.count > 0:
		l.count--
	default:
		l.cand, l.sum, l.n, l.count = r, r, 1, 1
	}
	if l.count >= MinVotes {
		l.learned = int(l.cand + 0.5)
	}
}

// agrees reports whether ratio r is the interval n, within the rounding of the printed
// figures: the context is an integer per request (±1 token each, ±1/commit in the ratio) and
// the commit length has two decimals (a few per mille).
// It runs for every decode point, so it avoids math.Max's call.
func agrees(r, n float64) bool {
	tol := 0.03 * n
	if tol < 1.5 {
		tol = 1.5
	}
	d := r - n
	return d <= tol && -d <= tol
}

// Settled reports whether the vote's margin is at its cap: a pair that agrees would change
// nothing, so a caller may skip those.
func (l *Learner) Settled() bool { return l.count >= maxMargin }

// Interval returns the learned interval, or ok false while the vote is undecided.
func (l *Learner) Interval() (n int, ok bool) { return l.learned, l.learned > 0 }

// Pairs is the number of pairs observed, for the report's account of what was learned from.
func (l *Learner) Pairs() int { return l.pairs }
