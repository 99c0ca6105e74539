package web

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specwatch/specwatch/exporter/exportertest"
	"github.com/specwatch/specwatch/model"
)

// gatedSource is a FakeSource whose Report blocks until gate is closed, says on entered that
// it was called, and numbers its reports in Input.Lines.
type gatedSource struct {
	*exportertest.FakeSource
	entered chan struct{}
	gate    chan struct{}
	calls   atomic.Int64
}

func (g *gatedSource) Report() model.Report {
	n := g.calls.Add(1)
	g.entered <- struct{}{}
	<-g.gate
	r := g.FakeSource.Report()
	r.Input.Lines = n
	return r
}

// fakeClock is the renderer's clock in tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

type result struct {
	code int
	body string
}

// TestRendersSharedAndBounded: while the page renders, 20 more requests for it share one render
// queued behind it (which starts after they arrived, so they see fresh data), and likewise for
// a report; with both render slots busy, another report is refused at once with 503 and
// Retry-After, and /metrics is still served. Without the bound every request rendered on its
// own: 100 clients on a 256-series page took 1 GB (issue 21).
func TestRendersSharedAndBounded(t *testing.T) {
	const more = 20
	src := &gatedSource{FakeSource: exportertest.ThreeSeries(), entered: make(chan struct{}, 4), gate: make(chan struct{})}
	var calls atomic.Int32
	pageEntered, pageGate := make(chan struct{}, 4), make(chan struct{})
	page := func(w io.Writer) error {
		n := calls.Add(1)
		pageEntered <- struct{}{}
		<-pageGate
		_, err := fmt.Fprintf(w, "render %d", n)
		return err
	}
	s := NewServer(ServerOptions{Source: src, Metrics: exportertest.NewMetrics(t, src.FakeSource).Registry(), Page: page})
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)} // stopped: renders take no time, pacing none
	s.renders.now = clock.Now
	const repKey = "/api/v1/report?series=gpu07"
	joined := map[string]chan bool{"/": make(chan bool, 2*more), repKey: make(chan bool, 2*more)}
	s.renders.joined = func(key string, queued bool) {
		if c := joined[key]; c != nil {
			c <- queued
		}
	}
	h := s.Handler()
	get := func(target string, out chan<- result) {
		w := do(t, h, "GET", target, nil)
		out <- result{w.Code, w.Body.String()}
	}
	// one render under way per key, then more requests for it
	pages, reps := make(chan result, more+1), make(chan result, more+1)
	go get("/", pages)
	<-pageEntered
	go get(repKey, reps)
	<-src.entered // both slots are taken now
	for key, c := range joined {
		if <-c {
			t.Fatalf("%s: the first request queued", key)
		}
		for range more {
			if key == "/" {
				go get("/", pages)
			} else {
				go get(repKey, reps)
			}
		}
		for range more {
			if !<-c {
				t.Fatalf("%s: a request joined the render under way instead of queueing behind it", key)
			}
		}
	}

	w := do(t, h, "GET", "/api/v1/report?series=gpu08", nil)
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" || !strings.Contains(w.Body.String(), "in flight") {
		t.Errorf("third render with %d in flight: %d Retry-After %q %q, want 503", MaxRendersInFlight, w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if w := do(t, h, "GET", "/metrics", nil); w.Code != 200 || !strings.Contains(w.Body.String(), "specwatch_commit_length_tokens") {
		t.Errorf("/metrics with every render slot busy: %d", w.Code)
	}

	close(pageGate)
	bodies := map[string]int{}
	for range more + 1 {
		r := <-pages
		if r.code != 200 {
			t.Errorf("page: %d %q", r.code, r.body)
		}
		bodies[r.body]++
	}
	if bodies["render 1"] != 1 || bodies["render 2"] != more || calls.Load() != 2 {
		t.Errorf("pages by render: %v after %d renders; want the first request's render 1, the %d queued behind it render 2", bodies, calls.Load(), more)
	}
	close(src.gate)
	<-src.entered // the queued render
	lines := map[int64]int{}
	for range more + 1 {
		r := <-reps
		var rep model.Report
		if err := json.Unmarshal([]byte(r.body), &rep); r.code != 200 || err != nil || len(rep.Series) != 1 || rep.Series[0].Labels.Host != "gpu07" {
			t.Fatalf("report: %d %v %.200q", r.code, err, r.body)
		}
		lines[rep.Input.Lines]++
	}
	if lines[1] != 1 || lines[2] != more || src.calls.Load() != 2 {
		t.Errorf("reports by render: %v after %d renders; want the first request's render 1, the %d queued behind it render 2", lines, src.calls.Load(), more)
	}
}

// TestRenderPacing: a render that took 2 s is followed by the next, of any key, no sooner than
// 3 × 2 s after it started; a request meanwhile waits for that one, not for the old one.
func TestRenderPacing(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	var calls atomic.Int32
	s := testServer(t, exportertest.ThreeSeries(), func(w io.Writer) error {
		clock.Add(2 * time.Second)
		_, err := fmt.Fprintf(w, "render %d", calls.Add(1))
		return err
	})
	type timer struct {
		d time.Duration
		f func()
	}
	timers := make(chan timer, 1)
	s.renders.now = clock.Now
	s.renders.after = func(d time.Duration, f func()) { timers <- timer{d, f} }
	h := s.Handler()
	if w := do(t, h, "GET", "/", nil); w.Body.String() != "render 1" {
		t.Fatalf("first request: %q", w.Body)
	}
	clock.Add(time.Second) // 3 s after the render started
	done := make(chan string, 1)
	go func() { done <- do(t, h, "GET", "/", nil).Body.String() }()
	tm := <-timers
	if want := renderPacing*2*time.Second - 3*time.Second; tm.d != want {
		t.Errorf("next render in %v, want %v", tm.d, want)
	}
	select {
	case b := <-done:
		t.Fatalf("answered %q before the paced render", b)
	default:
	}
	// The pacing is across keys: a report asked for meanwhile waits too.
	rep := make(chan int, 1)
	go func() { rep <- do(t, h, "GET", "/api/v1/report", nil).Code }()
	if tr := <-timers; tr.d != tm.d {
		t.Errorf("report during the page's pacing: next render in %v, want %v", tr.d, tm.d)
	} else {
		defer func() { // render 2 moved the pacing on: the report's timer is set again
			tr.f()
			tr = <-timers
			clock.Add(tr.d)
			tr.f()
			if code := <-rep; code != 200 {
				t.Errorf("paced report: %d", code)
			}
		}()
	}
	clock.Add(tm.d)
	tm.f()
	if b := <-done; b != "render 2" {
		t.Errorf("paced request: %q, want render 2", b)
	}
	if n := len(timers); n != 0 {
		t.Errorf("%d timers left", n)
	}
}

// TestRenderLimits: a render that writes more than the limit is a clean 500, and a render that
// panics (on its own goroutine, out of net/http's reach) is a 500, not a crash.
func TestRenderLimits(t *testing.T) {
	src := exportertest.ThreeSeries()
	big := func(w io.Writer) error {
		for range 8 {
			if _, err := w.Write(make([]byte, 512)); err != nil {
				return err
			}
		}
		return nil
	}
	s := testServer(t, src, big)
	s.renders = newRenderer(MaxRendersInFlight, 2<<10)
	w := do(t, s.Handler(), "GET", "/", nil)
	if w.Code != 500 || w.Body.Len() > 200 {
		t.Errorf("4 KiB page with a 2 KiB limit: %d, %d bytes, want a clean 500", w.Code, w.Body.Len())
	}
	if w := do(t, s.Handler(), "GET", "/api/v1/report", nil); w.Code != 200 {
		t.Errorf("report within the limit: %d", w.Code)
	}
	boom := testServer(t, src, func(io.Writer) error { panic("boom") })
	if w := do(t, boom.Handler(), "GET", "/", nil); w.Code != 500 {
		t.Errorf("panicking page: %d, want 500", w.Code)
	}
	if MaxRenderBytes < 32<<20 {
		t.Errorf("MaxRenderBytes %d is below the fullest status page (32 MB)", MaxRenderBytes)
	}
}

// TestRendersConcurrent hammers the page and the report from many goroutines under -race: every
// answer is a whole 200 or a 503, and the renderer forgets every key at the end.
func TestRendersConcurrent(t *testing.T) {
	s := testServer(t, exportertest.ThreeSeries(), nil)
	h := s.Handler()
	var wg sync.WaitGroup
	var ok, busy atomic.Int32
	deadline := time.Now().Add(30 * time.Second)
	for i := range 16 {
		wg.Go(func() {
			target := []string{"/", "/api/v1/report", "/api/v1/report?series=gpu0" + fmt.Sprint(i%4)}[i%3]
			for j := 0; j < 50 && time.Now().Before(deadline); j++ {
				w := do(t, h, "GET", target, nil)
				switch {
				case w.Code == 200 && (strings.HasSuffix(w.Body.String(), "</html>\n") || strings.HasSuffix(w.Body.String(), "}\n")):
					ok.Add(1)
				case w.Code == 503:
					busy.Add(1)
				default:
					t.Errorf("%s: %d %.100q", target, w.Code, w.Body)
				}
			}
		})
	}
	wg.Wait()
	if ok.Load() == 0 {
		t.Error("no request answered")
	}
	s.renders.mu.Lock()
	defer s.renders.mu.Unlock()
	for key, k := range s.renders.keys {
		if k.running != nil || k.next != nil {
			t.Errorf("%s: a render left running or queued", key)
		}
	}
}

// TestRenderGzip: a client that accepts gzip gets the stored gzip bytes, one that does not (or
// refuses it with q=0) the same body decompressed, with the right lengths, also for HEAD.
func TestRenderGzip(t *testing.T) {
	page := strings.Repeat("<p>status page</p>\n", 5000)
	s := testServer(t, exportertest.ThreeSeries(), func(w io.Writer) error { _, err := io.WriteString(w, page); return err })
	h := s.Handler()
	plain := do(t, h, "GET", "/", nil)
	if plain.Body.String() != page || plain.Header().Get("Content-Encoding") != "" || plain.Header().Get("Content-Length") != fmt.Sprint(len(page)) {
		t.Errorf("no Accept-Encoding: %d bytes, Content-Encoding %q, Content-Length %q", plain.Body.Len(),
			plain.Header().Get("Content-Encoding"), plain.Header().Get("Content-Length"))
	}
	for _, ae := range []string{"gzip", "deflate, gzip;q=1.0, br", "*", "GZIP"} {
		w := do(t, h, "GET", "/", nil, "Accept-Encoding", ae)
		if w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q Vary %q", ae, w.Header().Get("Content-Encoding"), w.Header().Get("Vary"))
			continue
		}
		if cl := w.Header().Get("Content-Length"); cl != fmt.Sprint(w.Body.Len()) || w.Body.Len() >= len(page)/4 {
			t.Errorf("Accept-Encoding %q: Content-Length %q, %d bytes sent for a %d-byte page", ae, cl, w.Body.Len(), len(page))
		}
		zr, err := gzip.NewReader(w.Body)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(zr)
		if err != nil || string(b) != page {
			t.Errorf("Accept-Encoding %q: %d bytes decompressed, %v", ae, len(b), err)
		}
	}
	for _, ae := range []string{"gzip;q=0", "identity", "br, gzip; q=0.0"} {
		if w := do(t, h, "GET", "/", nil, "Accept-Encoding", ae); w.Header().Get("Content-Encoding") != "" || w.Body.String() != page {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, %d bytes", ae, w.Header().Get("Content-Encoding"), w.Body.Len())
		}
	}
	if w := do(t, h, "HEAD", "/", nil); w.Body.Len() != 0 || w.Header().Get("Content-Length") != fmt.Sprint(len(page)) {
		t.Errorf("HEAD: %d bytes, Content-Length %q", w.Body.Len(), w.Header().Get("Content-Length"))
	}
}
