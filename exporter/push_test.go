package exporter_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	vmetrics "github.com/VictoriaMetrics/metrics"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/exporter/exportertest"
)

// receiver is an in-process push target: it hands every body (gunzipped) to bodies and
// answers with status.
func receiver(t *testing.T, status int) (*httptest.Server, chan string) {
	t.Helper()
	bodies := make(chan string, 1000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rd io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				t.Error(err)
				return
			}
			rd = zr
		}
		b, _ := io.ReadAll(rd)
		w.WriteHeader(status)
		bodies <- r.Method + " " + string(b)
	}))
	t.Cleanup(srv.Close)
	return srv, bodies
}

func recv(t *testing.T, ch chan string) string {
	t.Helper()
	select {
	case b := <-ch:
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("no push within 10 s")
		return ""
	}
}

// TestLibraryDoesNotPushOnCancel pins the behaviour Pusher works around: the library's
// worker returns on cancellation without a last push.
func TestLibraryDoesNotPushOnCancel(t *testing.T) {
	srv, bodies := receiver(t, 204)
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	err := vmetrics.InitPushExtWithOptions(ctx, srv.URL, time.Hour, func(w io.Writer) { io.WriteString(w, "x 1\n") },
		&vmetrics.PushOptions{WaitGroup: &wg})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	wg.Wait()
	select {
	case b := <-bodies:
		t.Errorf("the library pushed on cancel (%q): Pusher's own final push is now a duplicate", b)
	default:
	}
}

func TestPushFinalAndLabels(t *testing.T) {
	srv, bodies := receiver(t, 204)
	m := exportertest.NewMetrics(t, exportertest.ThreeSeries())
	m.ObserveStep(0, exportertest.StepLabels, 0.05)
	p, err := exporter.StartPush(context.Background(), exporter.PushOptions{URL: srv.URL + "/api/v1/import/prometheus", Interval: time.Hour,
		ExtraLabels: map[string]string{"host": "node-a", "dc": "x"}, Gatherer: m.Registry(), Failures: m.PushFailures()})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	body := recv(t, bodies) // an hour's interval: only the final push can have sent it
	method, text, _ := strings.Cut(body, " ")
	if method != http.MethodPost {
		t.Errorf("method %s, want POST", method)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	mfs, err := parser.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("pushed text does not parse: %v", err)
	}
	for name, want := range map[string]string{
		"specwatch_build_info":            `dc="x",goversion="` + goVersion() + `",host="node-a",revision="abc",version="1.2.3"`,
		"specwatch_commit_length_tokens":  `attn_cp="",container="",dc="x",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service"`, // own host wins
		"specwatch_step_duration_seconds": "",
	} {
		mf := mfs[name]
		if mf == nil {
			t.Errorf("%s not pushed", name)
			continue
		}
		if want == "" {
			continue
		}
		var got []string
		for _, l := range mf.Metric[0].Label {
			got = append(got, l.GetName()+"="+`"`+l.GetValue()+`"`)
		}
		if strings.Join(got, ",") != want {
			t.Errorf("%s labels {%s}, want {%s}", name, strings.Join(got, ","), want)
		}
	}
	select {
	case b := <-bodies:
		t.Errorf("a second push after Stop: %.80q", b)
	default:
	}
}

// logSignal is a log writer that announces each line (the push logs after counting).
type logSignal struct {
	mu  sync.Mutex
	buf bytes.Buffer
	ch  chan struct{}
}

func (l *logSignal) Write(b []byte) (int, error) {
	l.mu.Lock()
	l.buf.Write(b)
	l.mu.Unlock()
	select {
	case l.ch <- struct{}{}:
	default:
	}
	return len(b), nil
}

func (l *logSignal) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.buf.String() }

func TestPushFailuresCountedAndRedacted(t *testing.T) {
	srv, _ := receiver(t, http.StatusServiceUnavailable)
	logs := &logSignal{ch: make(chan struct{}, 100)}
	m := exportertest.NewMetrics(t, exportertest.ThreeSeries())
	u := strings.Replace(srv.URL, "http://", "http://user:s3cret@", 1)
	p, err := exporter.StartPush(context.Background(), exporter.PushOptions{URL: u, Interval: 20 * time.Millisecond,
		Gatherer: m.Registry(), Failures: m.PushFailures(), Logger: zerolog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		select {
		case <-logs.ch:
		case <-time.After(10 * time.Second):
			t.Fatal("no failure logged within 10 s")
		}
	}
	if err := p.Stop(); err == nil {
		t.Error("final push to a 503 receiver: no error")
	}
	if n := gatherValue(t, m.Registry(), "specwatch_push_failures_total", nil); n < 3 || int64(n) != p.Failures() {
		t.Errorf("specwatch_push_failures_total %v, Pusher.Failures %d; want the same, ≥ 3", n, p.Failures())
	}
	if strings.Contains(logs.String(), "s3cret") {
		t.Errorf("the push URL's password was logged:\n%s", logs)
	}
}

// TestPushBlackholeStops: a receiver that accepts and never answers delays only the push;
// Stop returns within the final push's timeout.
func TestPushBlackholeStops(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	m := exportertest.NewMetrics(t, exportertest.ThreeSeries())
	p, err := exporter.StartPush(context.Background(), exporter.PushOptions{URL: "http://" + ln.Addr().String() + "/x", Interval: 50 * time.Millisecond,
		Gatherer: m.Registry(), FinalTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100_000 {
		m.ObserveStep(0, exportertest.StepLabels, 0.05+float64(i%100)/1000)
	}
	start := time.Now()
	err = p.Stop()
	if d := time.Since(start); err == nil || d > 2*time.Second {
		t.Errorf("Stop against a blackhole: %v after %v; want a timeout error within 2 s", err, d)
	}
}

func TestPushOptionsErrors(t *testing.T) {
	m := exportertest.NewMetrics(t, exportertest.ThreeSeries())
	for _, tc := range []struct {
		opts exporter.PushOptions
		want string
	}{
		{exporter.PushOptions{URL: "http://u:pw@h:1/x?token=t0k", Interval: 0, Gatherer: m.Registry()}, "http://h:1/x?token=xxxxx"},
		{exporter.PushOptions{URL: "ftp://h/x", Interval: time.Second, Gatherer: m.Registry()}, "ftp://h/x"},
		{exporter.PushOptions{URL: "http://u:pw@h:1/%zz", Interval: time.Second, Gatherer: m.Registry()}, "invalid URL escape"},
		{exporter.PushOptions{URL: "http://h/x", Interval: time.Second, Gatherer: m.Registry(), ExtraLabels: map[string]string{"__x": "1"}}, "__x"},
		{exporter.PushOptions{URL: "http://h/x", Interval: time.Second}, "Gatherer"},
	} {
		_, err := exporter.StartPush(context.Background(), tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "pw@") || strings.Contains(err.Error(), "t0k") {
			t.Errorf("%+v: %v, want an error naming %q", tc.opts.URL, err, tc.want)
		}
	}
	if _, err := exporter.ParsePushLabels([]string{"host=a", "host=b"}); !errors.Is(err, exporter.ErrLabel) {
		t.Errorf("repeated label: %v", err)
	}
	if l, err := exporter.ParsePushLabels([]string{"host=a", "dc=eu=1"}); err != nil || l["dc"] != "eu=1" {
		t.Errorf("ParsePushLabels: %v %v", l, err)
	}
}
