package web

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// Renders of the status page and of /api/v1/report are bounded, so that no number of clients
// can take the daemon's memory or /metrics with them (a 256-series page is several MB, and
// rendering it allocates many times that):
//
//   - Requests for the same response share one render (the key is the path and the query): a
//     request waits for the next render to start after it arrived, never for one already under
//     way, so every response is at least as fresh as its request, and N clients cost one render
//     at a time, plus one queued behind it.
//   - At most MaxRendersInFlight renders run at once, whatever their keys; a render that finds
//     no free slot is refused with 503 and Retry-After to every request waiting for it, as
//     /metrics refuses scrapes past MaxScrapesInFlight. /metrics has its own bound and takes no
//     render slot, so a flood of page or API requests never queues a scrape.
//   - A render may write at most MaxRenderBytes; past that it fails (500, said in the log)
//     rather than growing without bound.
//
// The rendered bytes are shared read-only by every request that waited for them.
const (
	MaxRendersInFlight = 2
	// MaxRenderBytes bounds one rendered page or report. The status page at its fullest (256
	// series, each with a full plot history of 2048 points) is about 32 MB.
	MaxRenderBytes = 64 << 20
	// maxRenderKeys bounds the remembered response sizes used to size render buffers.
	maxRenderKeys = 32
)

// errBusy is a render refused for want of a slot.
var errBusy = errors.New("too many page and report renders in flight")

// errTooLarge is a render that wrote more than its limit.
var errTooLarge = errors.New("response larger than the render limit")

// renderer coalesces and bounds renders; the zero value is not usable (newRenderer).
type renderer struct {
	slots    chan struct{}
	maxBytes int

	mu    sync.Mutex
	keys  map[string]*renderKey
	sizes map[string]int // the last successful size per key: the next buffer's capacity

	// joined, if set, is called (with mu held) each time a request joins a flight: tests wait on
	// it instead of sleeping.
	joined func(key string, queued bool)
}

// renderKey is the state of one key: the render running, and the one queued to start after it
// (which every request arriving meanwhile joins).
type renderKey struct {
	running, next *flight
}

// flight is one render; done is closed once body or err is set.
type flight struct {
	render func(io.Writer) error
	done   chan struct{}
	body   []byte
	err    error
}

func newRenderer(slots, maxBytes int) *renderer {
	return &renderer{slots: make(chan struct{}, slots), maxBytes: maxBytes,
		keys: make(map[string]*renderKey), sizes: make(map[string]int)}
}

// get returns the flight r's request joins for key, starting or queueing it as needed; render
// produces the response (every render of one key produces the same response for the state it
// reads).
func (g *renderer) get(key string, render func(io.Writer) error) *flight {
	g.mu.Lock()
	defer g.mu.Unlock()
	k := g.keys[key]
	if k == nil {
		k = &renderKey{}
		g.keys[key] = k
	}
	if k.running != nil && k.next == nil {
		k.next = &flight{render: render, done: make(chan struct{})}
	}
	if g.joined != nil {
		g.joined(key, k.next != nil)
	}
	if k.next != nil { // queued, not started: it will read the state after this request arrived
		return k.next
	}
	f := &flight{render: render, done: make(chan struct{})}
	k.running = f
	g.start(key, f)
	return f
}

// start runs f on its own goroutine if a slot is free, else fails it with errBusy and, with
// g.mu held, promotes what is queued behind it. Called with g.mu held.
func (g *renderer) start(key string, f *flight) {
	select {
	case g.slots <- struct{}{}:
		go g.run(key, f)
	default:
		f.err = errBusy
		close(f.done)
		g.finish(key)
	}
}

// run renders f into memory, bounded by maxBytes, then releases its slot and starts the render
// queued behind it, if any.
func (g *renderer) run(key string, f *flight) {
	g.mu.Lock()
	size := g.sizes[key]
	g.mu.Unlock()
	b := bytes.NewBuffer(make([]byte, 0, min(size+size/8, g.maxBytes)))
	f.err = safeRender(f.render, &limitWriter{b: b, max: g.maxBytes})
	if f.err == nil {
		f.body = b.Bytes()
	}
	<-g.slots
	g.mu.Lock()
	if f.err == nil {
		if len(g.sizes) >= maxRenderKeys {
			clear(g.sizes)
		}
		g.sizes[key] = len(f.body)
	}
	close(f.done)
	g.finish(key)
	g.mu.Unlock()
}

// finish ends key's running render: the queued one, if any, starts; else the key is forgotten.
// Called with g.mu held.
func (g *renderer) finish(key string) {
	k := g.keys[key]
	k.running, k.next = k.next, nil
	if k.running == nil {
		delete(g.keys, key)
		return
	}
	g.start(key, k.running)
}

// safeRender calls render, turning a panic into an error: a render runs on its own goroutine,
// where net/http's recovery of a handler's panic does not reach.
func safeRender(render func(io.Writer) error, w io.Writer) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return render(w)
}

// limitWriter is a bytes.Buffer that refuses to grow past max.
type limitWriter struct {
	b   *bytes.Buffer
	max int
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.max {
		return 0, fmt.Errorf("%w (%d bytes)", errTooLarge, w.max)
	}
	return w.b.Write(p)
}

// writeRendered answers r with the response of key, rendering it (shared with the requests for
// the same key, bounded as above) into memory first, so that a failure is a clean 500 (said in
// the log as what failed) rather than half a body; past the render bound it is a 503. If the
// client goes away while waiting, nothing is written.
func (s *Server) writeRendered(w http.ResponseWriter, r *http.Request, key, contentType, what string, render func(io.Writer) error) {
	f := s.renders.get(key, render)
	select {
	case <-f.done:
	case <-r.Context().Done():
		return
	}
	switch {
	case errors.Is(f.err, errBusy):
		w.Header().Set("Retry-After", "1")
		http.Error(w, what+": "+errBusy.Error()+" (at most "+strconv.Itoa(cap(s.renders.slots))+"); retry", http.StatusServiceUnavailable)
		return
	case f.err != nil:
		s.log.Error(what, "err", f.err)
		http.Error(w, what+" failed; see the log", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(len(f.body)))
	if r.Method != http.MethodHead {
		w.Write(f.body)
	}
}
