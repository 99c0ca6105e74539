// Package fusion decides, per figure, which source a series takes it from when one engine rank
// is watched through its logs and its /metrics at once. The two describe the same steps, so
// taking a figure from both would count every step twice; each figure comes from the source
// that states it best:
//   - acceptance (commit length, accept rate, per position): the counters, which are exact
//     over each interval, where log lines print rounded averages (and some never print it).
//     llama.cpp's commit length and accept rate come from its logs: its counters count no
//     verify steps (ingest/scrape gives it no commit length), each request's lines do;
//   - step time, context and measured tok/s (a step point carries all three): the engine's
//     forward-pass stream where there is one, each pass measured with its batch's KV tokens;
//     else the logs, whose lines are as frequent as the engine prints and name the context
//     (SGLang #token) where /metrics has only gauges as of the scrape. llama.cpp's requests state their tok/s
//     by the engine's clock, the one its tokens_predicted_seconds counter adds up.
//
// A figure starts with whichever source gives it first and moves, once, to the better source
// when that one appears; it never moves back (a scrape that fails for a while does not hand
// the acceptance back to the logs and then take it again).
package fusion

import "github.com/specwatch/specwatch/sample"

// Figure is the source one figure is taken from; None before any gave it.
type Figure int8

// None is a figure no source gave yet.
const None Figure = -1

// Take applies the rule to a sample of source src for a figure that better wins. ok says
// the sample's figure feeds the series; moved says the figure has just left the source it had
// (the model then drops what that source left half done).
func (f *Figure) Take(src, better sample.Source) (ok, moved bool) {
	switch {
	case *f == None || *f == Figure(src):
	case src == better:
		moved = true
	default:
		return false, false
	}
	*f = Figure(src)
	return true, moved
}

// TakeRanked is Take where a source wins over every source ranked below it (PointsRank).
func (f *Figure) TakeRanked(src sample.Source, rank func(sample.Source) int) (ok, moved bool) {
	switch {
	case *f == None || *f == Figure(src):
	case rank(src) > rank(sample.Source(*f)):
		moved = true
	default:
		return false, false
	}
	*f = Figure(src)
	return true, moved
}

// PointsRank orders the sources of step points: the forward passes, then the logs, then the
// scrape's gauges.
func PointsRank(src sample.Source) int {
	switch src {
	case sample.SourceForwardPass:
		return 2
	case sample.SourceLog:
		return 1
	}
	return 0
}

// CommitFrom is the source whose acceptance figures (commit length, accept rate) win for
// engine e.
func CommitFrom(e sample.Engine) sample.Source {
	if e == sample.EngineLlamaCpp {
		return sample.SourceLog
	}
	return sample.SourceMetrics
}

// Name is the source's name, "logs" or "metrics", or empty for None.
func (f Figure) Name() string {
	if f < 0 {
		return ""
	}
	return sample.Source(f).String()
}

// Choice is a series' choice for each figure, and the sources it has seen. The zero value is
// not ready: use New.
type Choice struct {
	seen                        [3]bool // by sample.Source
	Commit, Points, PerPosition Figure
}

// New returns a choice before any sample.
func New() Choice { return Choice{Commit: None, Points: None, PerPosition: None} }

// See records that a sample of source src arrived.
func (c *Choice) See(src sample.Source) {
	if int(src) < len(c.seen) {
		c.seen[src] = true
	}
}

// Saw reports whether a sample of source src arrived.
func (c *Choice) Saw(src sample.Source) bool { return int(src) < len(c.seen) && c.seen[src] }

// Inputs names the sources seen, in parse.Source order.
func (c *Choice) Inputs() []string {
	in := []string{}
	for i, ok := range c.seen {
		if ok {
			in = append(in, sample.Source(i).String())
		}
	}
	return in
}
