package llama

import (
	"bytes"
	"hash/maphash"
)

// Bounds of the join's memory: requests launched or printing their lines, finished ones held
// for Take, and finished spans for the overlap estimate of Running.
const (
	MaxPending = 48
	MaxReady   = 16
	maxSpans   = 64
)

// Join turns the lines of each request (keyed by the caller's server key, the slot and the
// task) into one Request. In 0.7.0 a request prints, when it ends, its timing lines then
// "stop processing" (release), and Line returns the Request on that line. A finished request
// whose release does not come (a build without it, or one that prints it before its timings)
// is held until the slot's next request starts, another slot line of its server follows its
// older-build continuation lines, or Flush; Take hands those out. The zero value is ready.
type Join struct {
	ents   [MaxPending]entry
	ready  [MaxReady]Request
	head   int // oldest ready
	nready int
	spans  [maxSpans]span
	next   int // next span written
	seq    uint64
	seed   maphash.Seed
	seeded bool
	Counts Counts
}

// Counts say what the join did with the requests it saw.
type Counts struct {
	Evicted int64 // unfinished requests forgotten to bound the memory
	Dropped int64 // finished requests lost: more than MaxReady waited for Take
}

type entry struct {
	Request
	used     bool
	launched bool  // its launch line was seen: Running is counted
	active   bool  // launched and not yet ended: in flight
	open     bool  // its server's older-build continuation lines attach to it
	progress bool  // a progress line showed it running
	released bool  // HasRelease, or ended as its slot's next request started
	first    int64 // its first line's time
	end      int64 // its eval line's time
	server   uint64
	seq      uint64 // last touched
}

// span is a finished request's decode, for the overlap estimate when launches are not logged.
type span struct {
	server     uint64
	start, end int64
}

// Line applies one slot line of server key, written at t (Unix ns, 0: unknown), its list in
// pos[:l.NPos]. It returns the finished request when the line ends one (a release after the
// timings), valid until the next call; nil otherwise.
func (j *Join) Line(key []byte, t int64, l *Line, pos []float64) *Request {
	if l.Part == PartNone || l.Part == PartGraphs || l.Part == PartTotal {
		return nil // older builds' header, and figures the request does not need
	}
	h := j.hash(key)
	var e *entry
	if l.HasID {
		j.settle(key, h, l.Slot, l.Task)
		e = j.find(key, h, l.Slot, l.Task)
		if e != nil && (l.Part == PartLaunch && (e.launched || e.HasPrompt) || l.Part == PartPrompt && e.HasPrompt) {
			j.end(e) // task ids start over when the server restarts: another request
			e = nil
		}
		if e == nil && l.Part == PartRelease {
			if e = j.floating(key, h); e != nil { // an older build printed its timings bare, before
				e.Slot, e.Task, e.HasID, e.open = l.Slot, l.Task, true, false
			}
		}
	} else {
		e = j.continuation(key, h, l.Part)
	}
	if e == nil {
		e = j.alloc(key, h, l, t)
	}
	j.seq++
	e.seq = j.seq
	if t != 0 {
		e.Time = t
	}
	switch l.Part {
	case PartLaunch:
		e.launched, e.active = true, true
		j.inFlight(h, key)
	case PartProgress:
		e.progress = true
	case PartPrompt:
		if !e.HasPrompt {
			e.PromptN, e.PromptMs, e.HasPrompt = l.N, l.Ms, true
		}
	case PartEval:
		if !e.HasEval {
			e.G, e.EvalMs, e.HasEval, e.end, e.active = l.N, l.Ms, true, t, false
		}
	case PartAccept:
		if !e.HasAccept {
			e.Rate, e.Accepted, e.Drafted, e.HasAccept = l.Rate, l.Accepted, l.Drafted, true
			e.Mean, e.HasMean = l.Mean, l.HasMean
			j.list(e, l, pos) // the shape of PR #24536 holds the list
		}
	case PartPerPos:
		j.list(e, l, pos)
	case PartRelease:
		e.NTokens, e.HasRelease, e.released, e.active = l.N, true, true, false
		if e.HasEval {
			return j.emit(e)
		}
		j.setOpen(e) // older builds: the timings follow, bare
	}
	return nil
}

func (j *Join) list(e *entry, l *Line, pos []float64) {
	if e.NPos == 0 && l.NPos > 0 {
		e.NPos = copy(e.Pos[:], pos[:l.NPos])
	}
}

func (j *Join) hash(key []byte) uint64 {
	if !j.seeded {
		j.seed, j.seeded = maphash.MakeSeed(), true
	}
	return maphash.Bytes(j.seed, key)
}

func (e *entry) of(key []byte, h uint64) bool {
	return e.used && e.server == h && bytes.Equal(e.Key, key)
}

func (j *Join) find(key []byte, h uint64, slot, task int) *entry {
	for i := range j.ents {
		if e := &j.ents[i]; e.of(key, h) && e.HasID && e.Slot == slot && e.Task == task {
			return e
		}
	}
	return nil
}

// settle is what a line naming (slot, task) says of the server's other requests: one of the
// same slot with another task has ended (a slot runs one task at a time), and one that was
// released before its bare timings (older builds) has printed them all.
func (j *Join) settle(key []byte, h uint64, slot, task int) {
	for i := range j.ents {
		e := &j.ents[i]
		if !e.of(key, h) || !e.HasID || e.Slot == slot && e.Task == task {
			continue
		}
		switch {
		case e.released && e.HasEval:
			j.queue(e)
		case e.Slot == slot:
			j.end(e)
		}
	}
}

// end closes a request whose next lines will not come: queued when it finished, else
// forgotten (launched, then nothing: a failed or cancelled task).
func (j *Join) end(e *entry) {
	if e.HasEval && e.HasID {
		j.queue(e)
		return
	}
	e.used = false
}

// Restart ends the server's requests: it restarted, and its task ids start over.
func (j *Join) Restart(key []byte) {
	h := j.hash(key)
	for i := range j.ents {
		if e := &j.ents[i]; e.of(key, h) {
			j.end(e)
		}
	}
}

// continuation finds the request an older build's bare line belongs to: its server's open
// one, unless that already has the figure (then the line starts another request).
func (j *Join) continuation(key []byte, h uint64, p Part) *entry {
	for i := range j.ents {
		e := &j.ents[i]
		if !e.of(key, h) || !e.open {
			continue
		}
		if p == PartPrompt && e.HasPrompt || p == PartEval && e.HasEval || p == PartAccept && e.HasAccept {
			return nil
		}
		return e
	}
	return nil
}

// floating returns the server's open request that names no slot and has its timings: the bare
// block a release line of an older build closes.
func (j *Join) floating(key []byte, h uint64) *entry {
	for i := range j.ents {
		if e := &j.ents[i]; e.of(key, h) && e.open && !e.HasID && e.HasEval {
			return e
		}
	}
	return nil
}

func (j *Join) setOpen(e *entry) {
	for i := range j.ents {
		if o := &j.ents[i]; o.used && o.server == e.server {
			o.open = false
		}
	}
	e.open = true
}

// alloc starts a request, forgetting the least recently touched one when all are in use.
func (j *Join) alloc(key []byte, h uint64, l *Line, t int64) *entry {
	var e *entry
	for i := range j.ents {
		if o := &j.ents[i]; !o.used {
			e = o // the first free: few entries, whose key buffers have grown, serve
			break
		}
	}
	if e == nil {
		e = &j.ents[0]
		for i := range j.ents {
			if o := &j.ents[i]; o.seq < e.seq {
				e = o
			}
		}
		if e.HasEval && e.HasID {
			j.queue(e) // finished, only its release missing
		} else {
			j.Counts.Evicted++
		}
	}
	keep := e.Key[:0]
	*e = entry{used: true, server: h, first: t}
	e.Key = append(keep, key...)
	e.Slot, e.Task, e.HasID = l.Slot, l.Task, l.HasID
	if !l.HasID {
		j.setOpen(e)
	}
	return e
}

// inFlight counts the server's launched requests not yet ended, and raises their Running.
func (j *Join) inFlight(h uint64, key []byte) {
	n := 0
	for i := range j.ents {
		if e := &j.ents[i]; e.of(key, h) && e.active {
			n++
		}
	}
	for i := range j.ents {
		if e := &j.ents[i]; e.of(key, h) && e.active && e.Running < n {
			e.Running = n
		}
	}
}

// emit finishes e and returns its request, valid until e is reused (the next Line).
func (j *Join) emit(e *entry) *Request {
	j.finish(e)
	e.used = false
	return &e.Request
}

// queue finishes e into the ready ring for Take.
func (j *Join) queue(e *entry) {
	j.finish(e)
	e.used = false
	if j.nready == MaxReady {
		j.head, j.nready = (j.head+1)%MaxReady, j.nready-1
		j.Counts.Dropped++
	}
	r := &j.ready[(j.head+j.nready)%MaxReady]
	keep := r.Key[:0]
	*r = e.Request
	r.Key = append(keep, e.Key...)
	j.nready++
}

// finish settles Running: counted from the launch lines when the request's was seen, else
// the most finished decodes of its server that overlapped its own (a lower bound: a request
// still running when it ended shows only if its progress was logged), when times are known.
func (j *Join) finish(e *entry) {
	if !e.HasEval {
		return
	}
	start := e.end - int64((e.PromptMs+e.EvalMs)*1e6)
	if e.end != 0 {
		j.spans[j.next] = span{e.server, start, e.end}
		j.next = (j.next + 1) % maxSpans
	}
	switch {
	case e.launched:
		e.Running = max(e.Running, 1)
	case e.end != 0:
		e.Running = j.overlap(e, start)
	default:
		e.Running = 0
	}
}

// overlap is the most requests in flight at once during [start, e.end]: e itself, the
// finished spans of its server, and its requests seen running but not finished.
func (j *Join) overlap(e *entry, start int64) int {
	best := 0
	at := func(p int64) {
		n := 0
		for _, s := range j.spans {
			if s.server == e.server && s.end != 0 && s.start <= p && p <= s.end {
				n++
			}
		}
		for i := range j.ents {
			if o := &j.ents[i]; o.used && o != e && o.server == e.server && o.progress && !o.HasEval && o.first <= p {
				n++
			}
		}
		best = max(best, n)
	}
	at(start)
	for _, s := range j.spans {
		if s.server == e.server && s.end != 0 && s.start > start && s.start <= e.end {
			at(s.start)
		}
	}
	return max(best, 1)
}

// Take returns the oldest finished request held back, valid until the next Line or Flush.
func (j *Join) Take() (*Request, bool) {
	if j.nready == 0 {
		return nil, false
	}
	r := &j.ready[j.head]
	j.head, j.nready = (j.head+1)%MaxReady, j.nready-1
	return r, true
}

// Flush hands to Take every finished request (its eval line seen) whose latest line is at or
// before before (Unix ns), oldest first: their release lines are not coming, or the input ended.
// It returns how many. Bare timing lines no slot line claimed are not a request of the server
// (llama_perf_context_print's, of llama-cli) and stay out.
func (j *Join) Flush(before int64) int {
	n := 0
	for {
		var e *entry
		for i := range j.ents {
			if o := &j.ents[i]; o.used && o.HasID && o.HasEval && o.Time <= before && (e == nil || o.seq < e.seq) {
				e = o
			}
		}
		if e == nil {
			return n
		}
		j.queue(e)
		n++
	}
}

// Pending returns how many requests are held (started, or finished without their release) and
// how many wait for Take.
func (j *Join) Pending() (held, ready int) {
	for i := range j.ents {
		if j.ents[i].used {
			held++
		}
	}
	return held, j.nready
}

// Key joins a server's parts (host, unit, container, …) into one key, NUL between them.
func Key(k []byte, parts ...[]byte) []byte {
	for i, p := range parts {
		if i > 0 {
			k = append(k, 0)
		}
		k = append(k, p...)
	}
	return k
}

// SplitKey is Key undone, into subslices of key.
func SplitKey(key []byte, parts ...*[]byte) {
	for _, p := range parts {
		i := bytes.IndexByte(key, 0)
		if i < 0 {
			*p, key = key, nil
			continue
		}
		*p, key = key[:i:i], key[i+1:]
	}
}
