package exporter

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/parse"
)

// fiftySeries is a source of 50 warm SGLang series, each with a step histogram.
func fiftySeries(b testing.TB) (*fakeSource, *Metrics) {
	src := &fakeSource{status: threeSeries().status}
	proto := threeSeries().snaps[0]
	for i := range 50 {
		s := proto
		s.ID = i
		s.Labels.Host = fmt.Sprintf("gpu%02d", i/8)
		s.Labels.Rank = fmt.Sprintf("TP%d", i%8)
		src.snaps = append(src.snaps, s)
	}
	m := newTestMetrics(b, src)
	for i, s := range src.snaps {
		for j := range 200 {
			m.ObserveStep(i, s.Labels, 0.02+float64(j)/1000)
		}
	}
	return src, m
}

// BenchmarkScrape50 is the server's time for one /metrics scrape of 50 series through the real
// handler (target ≤ 2 ms), in the formats scrapers negotiate, writing to a sink as a
// connection would. cpu-ns/op is the process's CPU time per scrape (GC included), which a
// loaded machine inflates less than ns/op.
func BenchmarkScrape50(b *testing.B) {
	src, m := fiftySeries(b)
	h := NewServer(ServerOptions{Source: src, Metrics: m}).Handler()
	for _, f := range []struct{ name, accept, encoding string }{
		{"text", "", ""},
		{"openmetrics", "application/openmetrics-text; version=1.0.0", ""},
		{"protobuf", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited", ""},
		{"openmetrics+gzip", "application/openmetrics-text; version=1.0.0", "gzip"}, // as Prometheus asks
	} {
		b.Run(f.name, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/metrics", nil)
			r.Header.Set("Accept", f.accept)
			r.Header.Set("Accept-Encoding", f.encoding)
			w := &sinkWriter{h: http.Header{}}
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				w.n, w.code = 0, 0
				h.ServeHTTP(w, r)
				if w.code != 200 {
					b.Fatal(w.code)
				}
			}
			b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
			b.SetBytes(int64(w.n))
		})
	}
}

// sinkWriter is a ResponseWriter that counts and discards the body.
type sinkWriter struct {
	h       http.Header
	n, code int
}

func (w *sinkWriter) Header() http.Header  { return w.h }
func (w *sinkWriter) WriteHeader(code int) { w.code = code }
func (w *sinkWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = 200
	}
	w.n += len(p)
	return len(p), nil
}

// ingestRate replays samples for about d, as the pipeline would (one lock per entry), each
// line once for each of hosts (48 series from the demo's 4), starting a fresh Set when the
// replay wraps; with scrape, a scrape runs every 100 ms meanwhile. It returns samples per second.
func ingestRate(l *Locked, samples []parse.Sample, res []parse.Result, hosts [][]byte, d time.Duration, scrape func()) float64 {
	stop := make(chan struct{})
	done := make(chan struct{})
	if scrape != nil {
		go func() {
			defer close(done)
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					scrape()
				}
			}
		}()
	} else {
		close(done)
	}
	start := time.Now()
	n := 0
	var c parse.Sample
	for i, j := 0, 0; j%256 != 0 || time.Since(start) < d; i, j = i+1, j+1 { // the clock every 256 lines
		if i == len(samples) {
			i = 0
		}
		if i == 0 {
			l.Mu.Lock()
			l.Set = model.NewSet(model.Options{Live: true})
			l.Mu.Unlock()
		}
		for _, h := range hosts {
			c = samples[i]
			c.Host = h
			l.Mu.Lock()
			if res[i] == parse.Matched {
				l.Set.Observe(&c)
			}
			l.Set.Count(res[i])
			l.Mu.Unlock()
		}
		n += len(hosts)
	}
	rate := float64(n) / time.Since(start).Seconds()
	close(stop)
	<-done
	return rate
}

func ingestFixture(t testing.TB) (*Locked, []parse.Sample, []parse.Result, [][]byte, func()) {
	samples, res := demoSamples(t)
	var hosts [][]byte
	for i := range 12 {
		hosts = append(hosts, fmt.Appendf(nil, "gpu%02d", i))
	}
	l := &Locked{Set: model.NewSet(model.Options{})}
	m := newTestMetrics(t, l)
	h := NewServer(ServerOptions{Source: l, Metrics: m}).Handler()
	scrape := func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	}
	return l, samples, res, hosts, scrape
}

// TestScrapesDoNotSlowIngest compares the ingest loop's throughput with and without a scrape
// every 100 ms, alternating rounds so that drift hits both alike. The scrape holds the
// pipeline's lock only for Snapshot; the bound is generous because a 2-CPU CI box is noisy,
// and the figures are logged.
func TestScrapesDoNotSlowIngest(t *testing.T) {
	l, samples, res, hosts, scrape := ingestFixture(t)
	var without, with float64
	const rounds = 3
	for range rounds {
		without += ingestRate(l, samples, res, hosts, 300*time.Millisecond, nil) / rounds
		with += ingestRate(l, samples, res, hosts, 300*time.Millisecond, scrape) / rounds
	}
	t.Logf("ingest: %.0f samples/s without scrapes, %.0f with a scrape every 100 ms (%+.1f %%), %d series",
		without, with, 100*(with/without-1), l.Set.Len())
	if raceEnabled {
		t.Log("race detector on: the comparison is not asserted")
		return
	}
	if with < 0.75*without {
		t.Errorf("scrapes slow ingestion by %.0f %%", 100*(1-with/without))
	}
}

func BenchmarkIngest(b *testing.B) {
	l, samples, res, hosts, scrape := ingestFixture(b)
	for _, tc := range []struct {
		name   string
		scrape func()
	}{{"noscrape", nil}, {"scrape100ms", scrape}} {
		b.Run(tc.name, func(b *testing.B) {
			var rate float64
			for b.Loop() {
				rate = ingestRate(l, samples, res, hosts, time.Second, tc.scrape)
			}
			b.ReportMetric(rate, "samples/s")
		})
	}
}
