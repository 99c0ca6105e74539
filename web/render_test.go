package web

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/exportertest"
	"github.com/specwatch/specwatch/model"
)

// gatedSource is a FakeSource whose Report blocks until gate is closed, and says on entered
// that it was called.
type gatedSource struct {
	*exportertest.FakeSource
	entered chan struct{}
	gate    chan struct{}
}

func (g *gatedSource) Report() model.Report {
	g.entered <- struct{}{}
	<-g.gate
	return g.FakeSource.Report()
}

// TestRendersSharedAndBounded: while the page renders, 20 more requests for it share one render
// queued behind it (which starts after they arrived, so they see fresh data); with both render
// slots busy (the page and a report), another report is refused at once with 503 and
// Retry-After, and /metrics is still served. Without the bound every request rendered on its
// own: 100 clients on a 256-series page took 1 GB (issue 21).
func TestRendersSharedAndBounded(t *testing.T) {
	const queued = 20
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
	s := NewServer(ServerOptions{Source: src, Metrics: exportertest.NewMetrics(t, src.FakeSource), Page: page})
	joined := make(chan bool, 2*queued)
	s.renders.joined = func(key string, queued bool) {
		if key == "/" {
			joined <- queued
		}
	}
	h := s.Handler()
	type result struct {
		code int
		body string
	}
	get := func(target string, out chan<- result) {
		w := do(t, h, "GET", target, nil)
		out <- result{w.Code, w.Body.String()}
	}
	first, rest, rep := make(chan result, 1), make(chan result, queued), make(chan result, 1)
	go get("/", first)
	<-pageEntered
	<-joined
	for range queued {
		go get("/", rest)
	}
	for range queued {
		if !<-joined {
			t.Fatal("a request for the page did not queue behind the render under way")
		}
	}
	go get("/api/v1/report?series=gpu07", rep)
	<-src.entered // both slots are taken now

	w := do(t, h, "GET", "/api/v1/report?series=gpu08", nil)
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" || !strings.Contains(w.Body.String(), "in flight") {
		t.Errorf("third render with %d in flight: %d Retry-After %q %q, want 503", MaxRendersInFlight, w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if w := do(t, h, "GET", "/metrics", nil); w.Code != 200 || !strings.Contains(w.Body.String(), "specwatch_commit_length") {
		t.Errorf("/metrics with every render slot busy: %d", w.Code)
	}

	close(pageGate)
	if r := <-first; r.code != 200 || r.body != "render 1" {
		t.Errorf("first request: %d %q, want render 1", r.code, r.body)
	}
	for range queued {
		if r := <-rest; r.code != 200 || r.body != "render 2" {
			t.Errorf("queued request: %d %q, want render 2 (one render, started after it arrived)", r.code, r.body)
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d renders for %d requests, want 2", n, queued+1)
	}
	close(src.gate)
	if r := <-rep; r.code != 200 || !strings.Contains(r.body, `"gpu07"`) || strings.Contains(r.body, `"gpu08"`) {
		t.Errorf("report: %d %.200q", r.code, r.body)
	}
	// Nothing is held once the renders are over: the next request renders afresh.
	if w := do(t, h, "GET", "/", nil); w.Body.String() != "render 3" {
		t.Errorf("after the burst: %q, want render 3", w.Body)
	}
	s.renders.mu.Lock()
	if n := len(s.renders.keys); n != 0 {
		t.Errorf("%d keys remembered after every render ended", n)
	}
	s.renders.mu.Unlock()
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
	if len(s.renders.keys) != 0 {
		t.Errorf("keys left: %d", len(s.renders.keys))
	}
}
