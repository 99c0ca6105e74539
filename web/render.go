package web

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Renders of the status page and of /api/v1/report are bounded, so that no number of clients
// can take the daemon's memory or /metrics with them (a 256-series page is several MB, and
// rendering it allocates many times that):
//
//   - Requests for the same response share one render (the key is the path and the query): a
//     request waits for the next render to start after it arrived, never for one already under
//     way, so every response is at least as fresh as its request, and N clients cost one
//     render at a time, plus one queued behind it.
//   - Renders are paced: one starts no sooner than renderPacing times the last one's duration
//     after the last one started, whatever their keys, so that a flood costs the daemon at most
//     a third of its time in renders (and in the model's lock, which a report holds while it is
//     built: /metrics takes it too), and renders slowed down by a busy machine come less often.
//     Requests arriving meanwhile wait for that render: at most twice a render's duration more.
//   - At most MaxRendersInFlight renders run at once, whatever their keys; a render that finds
//     no free slot is refused with 503 and Retry-After to every request waiting for it, as
//     /metrics refuses scrapes past MaxScrapesInFlight. /metrics has its own bound and takes no
//     render slot, so a flood of page or API requests never queues a scrape.
//   - A render may write at most MaxRenderBytes; past that it fails (500, said in the log)
//     rather than growing without bound.
//
// The rendered bytes are kept gzip-compressed (the fastest level: a 4.8 MB page is about 1.2
// MB), shared read-only by every request that waited for them, sent as they are to clients
// that accept gzip (browsers, Prometheus, Go's client), and decompressed once per render for
// the others (curl without --compressed): the memory a render holds, and the bytes written per
// request, are a quarter of the page.
const (
	MaxRendersInFlight = 2
	// MaxRenderBytes bounds one rendered page or report. The status page at its fullest (256
	// series, each with a full plot history of 2048 points) is about 32 MB.
	MaxRenderBytes = 64 << 20
	// maxRenderKeys bounds the response sizes remembered to size render buffers.
	maxRenderKeys = 32

	// renderPacing: the next render starts at least this many times the last one's duration
	// after the last one started.
	renderPacing = 3
)

// errBusy is a render refused for want of a slot.
var errBusy = errors.New("too many page and report renders in flight")

// errTooLarge is a render that wrote more than its limit.
var errTooLarge = errors.New("response larger than the render limit")

// renderer coalesces, paces and bounds renders; the zero value is not usable (newRenderer).
type renderer struct {
	slots    chan struct{}
	maxBytes int
	now      func() time.Time
	after    func(time.Duration, func()) // time.AfterFunc

	mu       sync.Mutex
	keys     map[string]*renderKey
	sizes    map[string]int // the last successful size per key: the next buffer's capacity
	earliest time.Time      // for the next render

	// joined, if set, is called (with mu held) each time a request joins a flight; queued says
	// it had not started: tests wait on it instead of sleeping.
	joined func(key string, queued bool)
}

// renderKey is the state of one key while it has a render running or queued: the render
// running, and the one queued to start after it (which every request arriving meanwhile joins).
type renderKey struct {
	running, next *flight
	timer         bool // next waits for the renderer's earliest
}

// flight is one render; done is closed once body, size or err are set.
type flight struct {
	render func(io.Writer) error
	done   chan struct{}
	body   []byte // gzip
	size   int    // uncompressed

	plainOnce sync.Once
	plain     []byte // decompressed, for clients that do not take gzip (plainBody)
	start     time.Time
	err       error
}

func newRenderer(slots, maxBytes int) *renderer {
	return &renderer{slots: make(chan struct{}, slots), maxBytes: maxBytes, now: time.Now,
		after: func(d time.Duration, f func()) { time.AfterFunc(d, f) },
		keys:  make(map[string]*renderKey), sizes: make(map[string]int)}
}

// get returns the flight a request joins for key, starting or queueing it as needed; render
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
	// Either way the request waits for a render that has not read the state yet: queued, or
	// started just now, after it arrived.
	f := k.next
	if f == nil {
		f = &flight{render: render, done: make(chan struct{})}
		k.next = f
		if k.running == nil {
			g.startNext(key, k)
		}
	}
	g.join(key, f == k.next)
	return f
}

func (g *renderer) join(key string, queued bool) {
	if g.joined != nil {
		g.joined(key, queued)
	}
}

// startNext starts key's queued render, now if the pacing allows, else once it does. Called
// with g.mu held, with nothing running for key.
func (g *renderer) startNext(key string, k *renderKey) {
	if k.timer {
		return
	}
	if d := g.earliest.Sub(g.now()); d > 0 {
		k.timer = true
		g.after(d, func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			k.timer = false
			g.startNext(key, k)
		})
		return
	}
	f := k.next
	k.running, k.next = f, nil
	f.start = g.now()
	select {
	case g.slots <- struct{}{}:
		go g.run(key, k, f)
	default:
		f.err = errBusy
		close(f.done)
		g.finish(key, k)
	}
}

// run renders f into memory, bounded by maxBytes, then releases its slot and starts the render
// queued behind it, if any.
func (g *renderer) run(key string, k *renderKey, f *flight) {
	g.mu.Lock()
	size := g.sizes[key]
	g.mu.Unlock()
	b := bytes.NewBuffer(make([]byte, 0, min(size+size/8, g.maxBytes)))
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(b)
	lw := &limitWriter{w: zw, max: g.maxBytes}
	f.err = safeRender(f.render, lw)
	if f.err == nil {
		f.err = zw.Close()
	}
	zw.Reset(io.Discard) // drop b: a failed render's may be large
	gzipWriters.Put(zw)
	if f.err == nil {
		f.body, f.size = b.Bytes(), lw.n
	}
	<-g.slots
	g.mu.Lock()
	defer g.mu.Unlock()
	if f.err == nil {
		if len(g.sizes) >= maxRenderKeys {
			clear(g.sizes)
		}
		g.sizes[key] = len(f.body)
	}
	if e := f.start.Add(renderPacing * g.now().Sub(f.start)); e.After(g.earliest) {
		g.earliest = e
	}
	close(f.done)
	g.finish(key, k)
}

// finish ends key's running render and starts the queued one, if any, else forgets the key.
// Called with g.mu held.
func (g *renderer) finish(key string, k *renderKey) {
	k.running = nil
	if k.next == nil {
		delete(g.keys, key)
		return
	}
	g.startNext(key, k)
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

// limitWriter passes at most max bytes to w, then fails.
type limitWriter struct {
	w      io.Writer
	n, max int
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if w.n+len(p) > w.max {
		return 0, fmt.Errorf("%w (%d bytes)", errTooLarge, w.max)
	}
	w.n += len(p)
	return w.w.Write(p)
}

// gzipWriters are reused across renders.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return zw
}}

// acceptsGzip reports whether the request's Accept-Encoding lists gzip (or *) without q=0.
func acceptsGzip(r *http.Request) bool {
	for _, h := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(h, ",") {
			name, params, _ := strings.Cut(part, ";")
			if name = strings.TrimSpace(name); !strings.EqualFold(name, "gzip") && name != "*" {
				continue
			}
			refused := false
			for _, p := range strings.Split(params, ";") {
				k, v, ok := strings.Cut(p, "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
					refused = err == nil && q == 0
				}
			}
			if !refused {
				return true
			}
		}
	}
	return false
}

// writeBody writes f's response: the gzip bytes as they are if the client takes them, else
// decompressed.
func writeBody(w http.ResponseWriter, r *http.Request, f *flight) {
	h := w.Header()
	h.Add("Vary", "Accept-Encoding")
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.Itoa(len(f.body)))
		if r.Method != http.MethodHead {
			w.Write(f.body)
		}
		return
	}
	h.Set("Content-Length", strconv.Itoa(f.size))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(f.plainBody()) // a failed write is the client's going away
}

// plainBody is the response decompressed, once per render, for the clients that do not take
// gzip: the copy lives only while such clients are served.
func (f *flight) plainBody() []byte {
	f.plainOnce.Do(func() {
		zr, err := gzip.NewReader(bytes.NewReader(f.body))
		if err != nil {
			return
		}
		f.plain = make([]byte, 0, f.size)
		b := bytes.NewBuffer(f.plain)
		io.Copy(b, zr) // in-memory gzip written by run: cannot fail
		f.plain = b.Bytes()
	})
	return f.plain
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
	writeBody(w, r, f)
}
