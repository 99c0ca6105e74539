//go:build linux

package testharness

// Test helpers that run a real Prometheus and Alertmanager (Debian's prometheus and
// prometheus-alertmanager packages) on loopback, with a webhook receiver in the test process.
// Each start registers its own stop with t.Cleanup; the returned Stop may be called earlier.
// The end-to-end test of the daemon uses them with production timings (15 s scrape and
// evaluation, group_wait 10 s); TestAlertPathMini proves them with 1 s timings.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/specwatch/specwatch/internal/deathsig"
)

// Server is a process started for a test.
type Server struct {
	URL  string // http://127.0.0.1:PORT
	Dir  string // its configuration, data and log (log.txt)
	Stop func() // idempotent; also registered with t.Cleanup
}

// PrometheusOptions configure StartPrometheus. Zero durations mean the production settings.
type PrometheusOptions struct {
	// Targets are host:port addresses scraped at /metrics as job Job (default "specwatch").
	Targets []string
	Job     string
	// RuleFiles are loaded after each group's interval is set to EvalInterval (copies in Dir).
	RuleFiles []string
	// ScrapeInterval and EvalInterval default to 15 s.
	ScrapeInterval, EvalInterval time.Duration
	// Alertmanager is the base URL of an Alertmanager to send alerts to (optional).
	Alertmanager string
}

// StartPrometheus starts Prometheus on a free loopback port and returns once it is ready.
func StartPrometheus(t testing.TB, o PrometheusOptions) *Server {
	t.Helper()
	bin := NeedTool(t, "prometheus", "prometheus")
	if o.Job == "" {
		o.Job = "specwatch"
	}
	if o.ScrapeInterval == 0 {
		o.ScrapeInterval = 15 * time.Second
	}
	if o.EvalInterval == 0 {
		o.EvalInterval = 15 * time.Second
	}
	dir := t.TempDir()
	var rules []string
	for i, f := range o.RuleFiles {
		dst := filepath.Join(dir, fmt.Sprintf("rules-%d-%s", i, filepath.Base(f)))
		if err := CopyRulesWithInterval(f, dst, o.EvalInterval); err != nil {
			t.Fatal(err)
		}
		rules = append(rules, dst)
	}
	cfg := map[string]any{
		"global": map[string]any{
			"scrape_interval":     o.ScrapeInterval.String(),
			"scrape_timeout":      min(o.ScrapeInterval, 10*time.Second).String(),
			"evaluation_interval": o.EvalInterval.String(),
		},
		"rule_files": rules,
		"scrape_configs": []any{map[string]any{
			"job_name":       o.Job,
			"static_configs": []any{map[string]any{"targets": o.Targets}},
		}},
	}
	if o.Alertmanager != "" {
		u := strings.TrimPrefix(strings.TrimPrefix(o.Alertmanager, "http://"), "https://")
		cfg["alerting"] = map[string]any{"alertmanagers": []any{map[string]any{
			"static_configs": []any{map[string]any{"targets": []string{strings.TrimRight(u, "/")}}},
		}}}
	}
	conf := writeYAML(t, filepath.Join(dir, "prometheus.yml"), cfg)
	addr := FreeAddr(t)
	return StartServer(t, "prometheus", dir, addr, bin,
		"--config.file="+conf,
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr,
		"--log.level=info",
	)
}

// AlertmanagerOptions configure StartAlertmanager. Zero values mean the production settings.
type AlertmanagerOptions struct {
	// WebhookURL receives every notification, resolved ones included.
	WebhookURL string
	// GroupBy defaults to one group per series: alertname, host, unit, rank.
	GroupBy []string
	// GroupWait defaults to 10 s, GroupInterval to 1 m, RepeatInterval to 1 h.
	GroupWait, GroupInterval, RepeatInterval time.Duration
}

// StartAlertmanager starts Alertmanager (clustering off) on a free loopback port.
func StartAlertmanager(t testing.TB, o AlertmanagerOptions) *Server {
	t.Helper()
	bin := NeedTool(t, "prometheus-alertmanager", "prometheus-alertmanager")
	if o.GroupBy == nil {
		o.GroupBy = []string{"alertname", "host", "unit", "rank"}
	}
	if o.GroupWait == 0 {
		o.GroupWait = 10 * time.Second
	}
	if o.GroupInterval == 0 {
		o.GroupInterval = time.Minute
	}
	if o.RepeatInterval == 0 {
		o.RepeatInterval = time.Hour
	}
	dir := t.TempDir()
	conf := writeYAML(t, filepath.Join(dir, "alertmanager.yml"), map[string]any{
		"route": map[string]any{
			"receiver":        "webhook",
			"group_by":        o.GroupBy,
			"group_wait":      o.GroupWait.String(),
			"group_interval":  o.GroupInterval.String(),
			"repeat_interval": o.RepeatInterval.String(),
		},
		"receivers": []any{map[string]any{
			"name": "webhook",
			"webhook_configs": []any{map[string]any{
				"url": o.WebhookURL, "send_resolved": true,
			}},
		}},
	})
	addr := FreeAddr(t)
	return StartServer(t, "alertmanager", dir, addr, bin,
		"--config.file="+conf,
		"--storage.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr,
		"--cluster.listen-address=",
		"--log.level=info",
	)
}

// StartServer runs bin in its own process group (killed with the test binary if that dies),
// logs to dir/log.txt, waits for /-/ready and registers the stop.
func StartServer(t testing.TB, name, dir, addr, bin string, args ...string) *Server {
	t.Helper()
	logPath := filepath.Join(dir, "log.txt")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := deathsig.Start(cmd); err != nil {
		logFile.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-exited
			}
			logFile.Close()
		})
	}
	dumpLog := func() {
		b, _ := os.ReadFile(logPath)
		if len(b) > 8000 {
			b = b[len(b)-8000:]
		}
		t.Logf("%s log (%s):\n%s", name, logPath, b)
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			dumpLog()
		}
	})
	s := &Server{URL: "http://" + addr, Dir: dir, Stop: stop}
	deadline := time.Now().Add(60 * time.Second)
	client := http.Client{Timeout: 2 * time.Second}
	for {
		select {
		case <-exited:
			dumpLog()
			t.Fatalf("%s exited during start-up", name)
		default:
		}
		if resp, err := client.Get(s.URL + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			stop()
			dumpLog()
			t.Fatalf("%s not ready at %s after 60 s", name, s.URL)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// CopyRulesWithInterval writes src to dst with every group's interval set to d.
func CopyRulesWithInterval(src, dst string, d time.Duration) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	groups, _ := doc["groups"].([]any)
	for _, g := range groups {
		if gm, ok := g.(map[string]any); ok {
			gm["interval"] = d.String()
		}
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, out, 0o644)
}

func writeYAML(t testing.TB, path string, v any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// WebhookAlert is one alert of an Alertmanager webhook notification.
type WebhookAlert struct {
	Status      string            `json:"status"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	StartsAt    time.Time         `json:"startsAt"`
	EndsAt      time.Time         `json:"endsAt"`
}

// WebhookMessage is one Alertmanager webhook notification (version 4).
type WebhookMessage struct {
	Received     time.Time         `json:"-"`
	Status       string            `json:"status"`
	Receiver     string            `json:"receiver"`
	GroupLabels  map[string]string `json:"groupLabels"`
	CommonLabels map[string]string `json:"commonLabels"`
	Alerts       []WebhookAlert    `json:"alerts"`
}

// Webhook is an Alertmanager webhook receiver in the test process.
type Webhook struct {
	URL string

	mu      sync.Mutex
	msgs    []WebhookMessage
	changed chan struct{} // closed and replaced on every message
}

// StartWebhook starts a receiver on loopback; it is closed at cleanup.
func StartWebhook(t testing.TB) *Webhook {
	t.Helper()
	w := &Webhook{changed: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		now := time.Now()
		body, _ := io.ReadAll(r.Body)
		var m WebhookMessage
		if err := json.Unmarshal(body, &m); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		m.Received = now
		w.mu.Lock()
		w.msgs = append(w.msgs, m)
		close(w.changed)
		w.changed = make(chan struct{})
		w.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	w.URL = srv.URL + "/hook"
	return w
}

// Messages returns a copy of every notification received so far.
func (w *Webhook) Messages() []WebhookMessage {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]WebhookMessage(nil), w.msgs...)
}

// WaitFor waits until a notification received at or after since holds an alert for which
// match is true, and returns that notification and alert.
func (w *Webhook) WaitFor(since time.Time, timeout time.Duration, match func(WebhookAlert) bool) (WebhookMessage, WebhookAlert, bool) {
	deadline := time.After(timeout)
	for {
		w.mu.Lock()
		for _, m := range w.msgs {
			if m.Received.Before(since) {
				continue
			}
			for _, a := range m.Alerts {
				if match(a) {
					w.mu.Unlock()
					return m, a, true
				}
			}
		}
		ch := w.changed
		w.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			return WebhookMessage{}, WebhookAlert{}, false
		}
	}
}

// PromQuery runs an instant query against base's /api/v1/query and fails the test on any
// error; see QueryProm.
func PromQuery(t testing.TB, base, expr string) []PromSample {
	t.Helper()
	out, err := QueryProm(base, expr)
	if err != nil {
		t.Fatalf("query %s: %v", expr, err)
	}
	return out
}

// QueryProm runs an instant query against a Prometheus-compatible API (Prometheus,
// VictoriaMetrics): a vector's samples, or one sample without labels for a scalar or a string.
func QueryProm(base, expr string) ([]PromSample, error) {
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(strings.TrimRight(base, "/") + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &body); err != nil || body.Status != "success" {
		return nil, fmt.Errorf("HTTP %d: %v %s %.500s", resp.StatusCode, err, body.Error, b)
	}
	value := func(v [2]any) float64 {
		var f float64
		if s, ok := v[1].(string); ok {
			fmt.Sscan(s, &f)
		}
		return f
	}
	if body.Data.ResultType == "scalar" || body.Data.ResultType == "string" {
		var v [2]any
		if err := json.Unmarshal(body.Data.Result, &v); err != nil {
			return nil, err
		}
		return []PromSample{{Value: value(v)}}, nil
	}
	var res []struct {
		Metric map[string]string `json:"metric"`
		Value  [2]any            `json:"value"`
	}
	if err := json.Unmarshal(body.Data.Result, &res); err != nil {
		return nil, err
	}
	out := make([]PromSample, 0, len(res))
	for _, r := range res {
		out = append(out, PromSample{Labels: r.Metric, Value: value(r.Value)})
	}
	return out, nil
}

// PromSample is one sample of an instant vector.
type PromSample struct {
	Labels map[string]string
	Value  float64
}
