package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/exporter/exportertest"
	"github.com/specwatch/specwatch/internal/testkit/testproc"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
)

func testServer(t *testing.T, src *exportertest.FakeSource, page func(io.Writer) error) *Server {
	t.Helper()
	s, _ := testServerMetrics(t, src, page)
	return s
}

// testServerMetrics is testServer with the exporter behind its /metrics.
func testServerMetrics(t *testing.T, src *exportertest.FakeSource, page func(io.Writer) error) (*Server, *exporter.Metrics) {
	t.Helper()
	m := exportertest.NewMetrics(t, src)
	return NewServer(ServerOptions{ListenAddress: "127.0.0.1:0", Source: src, Metrics: m.Registry(), Page: page}), m
}

func do(t *testing.T, h http.Handler, method, target string, body io.Reader, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, body)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestReportFilter(t *testing.T) {
	h := testServer(t, exportertest.ThreeSeries(), nil).Handler()
	for _, tc := range []struct {
		query string
		code  int
		hosts []string
	}{
		{"", 200, []string{"gpu07", "gpu08", "gpu09"}},
		{"?series=gpu08", 200, []string{"gpu08"}},
		{"?series=sglang", 200, []string{"gpu07"}},
		{"?series=host=gpu07,rank=TP0", 200, []string{"gpu07"}},
		{"?series=host=gpu07,rank=TP", 200, []string{}}, // exact, not substring
		{"?series=rank=Engine%20000", 200, []string{"gpu08"}},
		{"?series=vllm&series=unit=fork", 200, []string{"gpu08", "gpu09"}},
		{"?series=", 400, nil},
		{"?series=zone=x", 400, nil},
		{"?series=host=a=b", 400, nil},
		{"?serie=gpu07", 400, nil},
		{"?series=%zz", 400, nil},
		{"?series=" + strings.Repeat("x", MaxQueryBytes), 414, nil},
	} {
		w := do(t, h, "GET", "/api/v1/report"+tc.query, nil)
		if w.Code != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.query, w.Code, w.Body, tc.code)
			continue
		}
		if tc.code != 200 {
			continue
		}
		var rep model.Report
		if err := json.Unmarshal(w.Body.Bytes(), &rep); err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		hosts := []string{}
		for _, s := range rep.Series {
			hosts = append(hosts, s.Labels.Host)
		}
		if !reflect.DeepEqual(hosts, tc.hosts) || rep.Input.Lines != 10 {
			t.Errorf("%s: hosts %v input %+v, want %v and the whole input", tc.query, hosts, rep.Input, tc.hosts)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
	}
}

func TestRequestGuards(t *testing.T) {
	h := testServer(t, exportertest.ThreeSeries(), nil).Handler()
	for _, tc := range []struct {
		method, path string
		body         io.Reader
		code         int
	}{
		{"GET", "/api/v1/report", strings.NewReader("x"), http.StatusBadRequest},
		{"GET", "/api/v1/report", strings.NewReader(strings.Repeat("x", MaxBodyBytes+1)), http.StatusRequestEntityTooLarge},
		{"GET", "/nope", nil, http.StatusNotFound},
		{"POST", "/nope", nil, http.StatusMethodNotAllowed},
		{"OPTIONS", "/", nil, http.StatusMethodNotAllowed},
	} {
		if w := do(t, h, tc.method, tc.path, tc.body); w.Code != tc.code {
			t.Errorf("%s %s: %d %q, want %d", tc.method, tc.path, w.Code, w.Body, tc.code)
		}
	}
	for _, p := range []string{"/api/v1/report", "/metrics", "/-/healthy", "/-/ready", "/"} {
		for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
			w := do(t, h, m, p, nil)
			if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %d, Allow %q, want 405 and GET, HEAD", m, p, w.Code, w.Header().Get("Allow"))
			}
		}
		if w := do(t, h, "HEAD", p, nil); w.Code != http.StatusOK {
			t.Errorf("HEAD %s: %d, want 200", p, w.Code)
		}
	}
}

func TestHealthAndReady(t *testing.T) {
	src := exportertest.ThreeSeries()
	src.State.CaughtUp = false
	h := testServer(t, src, nil).Handler()
	if w := do(t, h, "GET", "/-/healthy", nil); w.Code != 200 {
		t.Errorf("healthy: %d", w.Code)
	}
	if w := do(t, h, "GET", "/-/ready", nil); w.Code != http.StatusServiceUnavailable {
		t.Errorf("ready before catching up: %d, want 503", w.Code)
	}
	src.SetStatus(func(st *pipeline.Status) { st.CaughtUp = true })
	if w := do(t, h, "GET", "/-/ready", nil); w.Code != 200 {
		t.Errorf("ready after catching up: %d, want 200", w.Code)
	}
	// A source that can read nothing (a glob matching no file) keeps it unready, with the reason.
	why := "glob /var/log/sglan/*.log matches no file"
	never := NewServer(ServerOptions{Source: src, Metrics: exportertest.NewMetrics(t, src).Registry(), Unready: func() string { return why }})
	if w := do(t, never.Handler(), "GET", "/-/ready", nil); w.Code != http.StatusServiceUnavailable || w.Body.String() != "Not ready: "+why+"\n" {
		t.Errorf("ServerOptions.Unready: %d %q, want 503 with the reason", w.Code, w.Body.String())
	}
	if w := do(t, never.Handler(), "GET", "/-/healthy", nil); w.Code != 200 {
		t.Errorf("healthy while a source reads nothing: %d, want 200 (liveness)", w.Code)
	}
}

func TestPage(t *testing.T) {
	src := exportertest.ThreeSeries()
	src.Snaps[0].Labels.Host = "<script>"
	w := do(t, testServer(t, src, nil).Handler(), "GET", "/", nil)
	if w.Code != 200 || !strings.Contains(w.Body.String(), "&lt;script&gt;") || strings.Contains(w.Body.String(), "<script>") {
		t.Errorf("minimal page: %d %s", w.Code, w.Body)
	}
	src.Snaps[1].Labels.Unit = "gpu\u202Eecivres.mllv" // shown as gpuvllm.service
	w = do(t, testServer(t, src, nil).Handler(), "GET", "/", nil)
	if b := w.Body.String(); strings.ContainsRune(b, '\u202E') || !strings.Contains(b, "gpu[U+202E]ecivres.mllv") {
		t.Errorf("minimal page: the bidi override is not shown as [U+202E]: %q", b)
	}
	fail := func(w io.Writer) error { io.WriteString(w, "half a page"); return errors.New("boom") }
	w = do(t, testServer(t, src, fail).Handler(), "GET", "/", nil)
	if w.Code != 500 || strings.Contains(w.Body.String(), "half") {
		t.Errorf("failing page: %d %q, want a clean 500", w.Code, w.Body)
	}
}

func TestMetricsNegotiation(t *testing.T) {
	s, m := testServerMetrics(t, exportertest.ThreeSeries(), nil)
	m.ObserveStep(0, exportertest.StepLabels, 0.05)
	h := s.Handler()
	for _, tc := range []struct{ accept, want string }{
		{"", "text/plain; version=0.0.4"},
		{"application/openmetrics-text; version=1.0.0", "application/openmetrics-text; version=1.0.0"},
		{"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited", "application/vnd.google.protobuf"},
	} {
		w := do(t, h, "GET", "/metrics", nil, "Accept", tc.accept)
		if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), tc.want) {
			t.Errorf("Accept %q: %d %q, want %q", tc.accept, w.Code, w.Header().Get("Content-Type"), tc.want)
		}
	}
}

func TestListenAndServe(t *testing.T) {
	s := testServer(t, exportertest.ThreeSeries(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	go func() { errc <- s.Serve(ctx) }()
	if err := testproc.Get200("http://" + s.Addr() + "/-/healthy"); err != nil {
		t.Error(err)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("Serve after cancel: %v", err)
	}
	bad := NewServer(ServerOptions{ListenAddress: "127.0.0.1:0", WebConfigFile: "/nonexistent/web.yml", Source: exportertest.ThreeSeries(), Metrics: s.opts.Metrics})
	if err := bad.ListenAndServe(context.Background()); err == nil || !strings.Contains(err.Error(), "/nonexistent/web.yml") {
		t.Errorf("missing web config: %v, want an error naming the file", err)
	}
}
