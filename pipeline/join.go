package pipeline

import (
	"math"
	"time"
)

// joinHold is how long a live stream waits for a finished llama.cpp request's release line
// before taking the request without it: 0.7.0 prints it within a millisecond of the timings,
// older builds never or before them.
const joinHold = 5 * time.Second

// drain applies the llama.cpp requests the stream finished without a release line (parse's
// Stream.Take); the caller holds the state's lock. A taken request is not a line: it adds to
// its series' figures but not to the input's line counts.
func (p *Pipeline) drain() {
	if p.stream == nil {
		return
	}
	if _, ready := p.stream.Pending(); ready == 0 {
		return
	}
	for p.stream.Take(&p.joined) {
		s := &p.joined.Sample
		if (p.since != 0 && s.Time < p.since) || (p.until != 0 && s.Time >= p.until) {
			p.state.set.CountOutOfRange()
			continue
		}
		se := p.state.set.Observe(s)
		p.heard(se, s.Time)
		p.observed(se)
	}
}

// EndInput takes every finished llama.cpp request the current input still holds: called at
// the end of a file or journal read to its end, and before the next input starts.
func (p *Pipeline) EndInput() { p.flushJoin(math.MaxInt64) }

// flushJoin takes the finished requests whose last line is before before (Unix ns).
func (p *Pipeline) flushJoin(before int64) {
	if p.stream == nil || p.stream.Flush(before) == 0 {
		return
	}
	p.state.mu.Lock()
	defer p.state.mu.Unlock()
	p.drain()
}
