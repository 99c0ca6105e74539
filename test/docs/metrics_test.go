package docs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// seriesLabels are the labels docs/metrics.md abbreviates as "series" in a row's labels column.
var seriesLabels = []string{"host", "unit", "engine", "rank", "dp", "tp", "pp", "ep", "attn_cp", "container", "namespace", "pod"}

// freeLabels take arbitrary values; every other label's values form a fixed vocabulary that the
// metric's row must list.
var freeLabels = map[string]bool{"host": true, "unit": true, "engine": true, "rank": true, "container": true, "namespace": true, "pod": true, "dp": true, "tp": true, "pp": true, "ep": true, "attn_cp": true,
	"context": true, "version": true, "revision": true, "goversion": true, "target": true}

var (
	backticked = regexp.MustCompile("`([^`]+)`")
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*`)
	// prefixRule is a documented family of names, `go_*`.
	prefixRule = regexp.MustCompile("`([a-z][a-z0-9]*_)\\*`")
)

// metricRow is one row of docs/metrics.md's tables: | `name{labels}` | type | labels | meaning |.
type metricRow struct {
	line      int
	typ       string
	labels    string // the labels cell
	backticks map[string]bool
}

// metricDocs reads docs/metrics.md: its rows by metric name, and its prefix rules (`go_*`).
func metricDocs(t *testing.T) (map[string]metricRow, []string) {
	doc := readDoc(t, "docs/metrics.md")
	rows := map[string]metricRow{}
	for i, line := range strings.Split(doc, "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if !strings.HasPrefix(strings.TrimSpace(line), "|") || len(cells) < 4 {
			continue
		}
		m := backticked.FindStringSubmatch(cells[0])
		if m == nil {
			continue
		}
		name := metricName.FindString(m[1])
		if name == "" {
			continue
		}
		r := metricRow{line: i + 1, typ: strings.TrimSpace(cells[1]), labels: cells[2], backticks: map[string]bool{}}
		for _, b := range backticked.FindAllStringSubmatch(line, -1) {
			r.backticks[b[1]] = true
		}
		if _, dup := rows[name]; dup {
			t.Errorf("docs/metrics.md:%d: %s has a second row", i+1, name)
		}
		rows[name] = r
	}
	var prefixes []string
	for _, m := range prefixRule.FindAllStringSubmatch(doc, -1) {
		prefixes = append(prefixes, m[1])
	}
	if len(rows) < 20 {
		t.Fatalf("docs/metrics.md: only %d metric rows found; is the table layout | `name` | type | labels | meaning |?", len(rows))
	}
	return rows, prefixes
}

// scrape reads /metrics at addr into families.
func scrape(ctx context.Context, addr string) (map[string]*dto.MetricFamily, error) {
	code, body, err := get(ctx, "http://"+addr+"/metrics")
	if err != nil {
		return nil, err
	}
	if code != 200 {
		return nil, fmt.Errorf("GET /metrics: status %d: %s", code, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(bytes.NewReader(body))
}

// demoURL is the metrics address demo prints ("  metrics      http://127.0.0.1:PORT/metrics").
var demoURL = regexp.MustCompile(`http://([^/\s]+)/metrics\b`)

// demoAddr finds the host:port of the metrics address in a line of demo's output.
func demoAddr(line string) string {
	if m := demoURL.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

// runAddr finds the listen address in run's JSON log ({"listen":"127.0.0.1:PORT",...}).
func runAddr(line string) string {
	var m map[string]any
	if json.Unmarshal([]byte(line), &m) != nil {
		return ""
	}
	s, _ := m["listen"].(string)
	return s
}

// TestMetricsDocumented scrapes the daemon twice — `demo` replaying its data as fast as it can
// (every per-series family), and `run` on an empty journal directory (the journal reader's
// counters) — and requires every family served to have a row in docs/metrics.md with its type,
// its labels, and every value of a label with a fixed vocabulary; names outside specwatch_ may
// instead fall under a documented prefix rule (`go_*`). The anomaly kinds exported must be
// those docs/report.md lists, and /api/v1/report must use only documented keys.
func TestMetricsDocumented(t *testing.T) {
	rows, prefixes := metricDocs(t)
	served := map[string]*dto.MetricFamily{}
	merge := func(fams map[string]*dto.MetricFamily) {
		for name, f := range fams {
			if old, ok := served[name]; ok {
				f.Metric = append(f.Metric, old.Metric...)
			}
			served[name] = f
		}
	}
	ctx := context.Background()

	// The demo at full speed: poll until the families that need a fitted model are there.
	d, addr := start(t, time.Minute, false, demoAddr, "demo", "--web.listen-address", "127.0.0.1:0", "--speed", "0")
	need := []string{"specwatch_commit_length_tokens", "specwatch_step_duration_seconds", "specwatch_model_step_fixed_seconds",
		"specwatch_model_forecast_tokens_per_second", "specwatch_throughput_attribution_log_ratio", "specwatch_anomaly_active"}
	poll(t, 2*time.Minute, 100*time.Millisecond, "demo /metrics with a fitted model", func() (bool, string) {
		fams, err := scrape(ctx, addr)
		if err != nil {
			return false, err.Error()
		}
		for _, n := range need {
			if fams[n] == nil {
				return false, n + " not served yet"
			}
		}
		merge(fams)
		return true, ""
	})
	var report []byte
	poll(t, 30*time.Second, 100*time.Millisecond, "demo /api/v1/report", func() (bool, string) {
		code, body, err := get(ctx, "http://"+addr+"/api/v1/report")
		if err != nil || code != 200 {
			return false, fmt.Sprintf("status %d, %v", code, err)
		}
		report = body
		return true, ""
	})
	d.stop()
	checkReportKeys(t, "/api/v1/report of the demo", report)

	if runtime.GOOS == "linux" {
		dir := t.TempDir()
		// a scrape target that refuses (nothing listens on port 1) makes the scrape families exist
		d, addr := start(t, time.Minute, true, runAddr, "run", "--journal.directory", dir, "--state.directory", t.TempDir(),
			"--journal.backend", "native", "--web.listen-address", "127.0.0.1:0", "--log.format", "json",
			"--scrape.url", "http://127.0.0.1:1/metrics")
		poll(t, time.Minute, 100*time.Millisecond, "run on an empty journal: /-/ready and the journal counters", func() (bool, string) {
			code, _, err := get(ctx, "http://"+addr+"/-/ready")
			if err != nil || code != 200 {
				return false, fmt.Sprintf("/-/ready: status %d, %v", code, err)
			}
			fams, err := scrape(ctx, addr)
			if err != nil {
				return false, err.Error()
			}
			for _, name := range []string{"specwatch_journal_reopens_total", "specwatch_scrape_failures_total"} {
				if fams[name] == nil {
					return false, name + " not served"
				}
			}
			merge(fams)
			return true, ""
		})
		d.stop()
	}

	names := make([]string, 0, len(served))
	for n := range served {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		checkFamily(t, served[name], rows, prefixes)
	}

	// Every anomaly kind is always exported: the set must be docs/report.md's vocabulary.
	reportDoc := readDoc(t, "docs/report.md")
	for _, kind := range labelValues(served["specwatch_anomaly_active"], "kind") {
		if !strings.Contains(reportDoc, "`"+kind+"`") {
			t.Errorf("anomaly kind %q (specwatch_anomaly_active) is not in docs/report.md", kind)
		}
	}
	t.Logf("%d families served and checked", len(names))
}

// checkFamily requires f to be documented: a row with its type, labels and label values, or,
// outside specwatch_, a prefix rule.
func checkFamily(t *testing.T, f *dto.MetricFamily, rows map[string]metricRow, prefixes []string) {
	t.Helper()
	name := f.GetName()
	row, ok := rows[name]
	if !ok {
		if !strings.HasPrefix(name, "specwatch_") {
			for _, p := range prefixes {
				if strings.HasPrefix(name, p) {
					return
				}
			}
		}
		t.Errorf("/metrics serves %s (%s), which docs/metrics.md does not list", name, typeName(f))
		return
	}
	if row.typ != typeName(f) {
		t.Errorf("docs/metrics.md:%d: %s is a %s, documented as %q", row.line, name, typeName(f), row.typ)
	}
	labels := map[string]bool{}
	for _, m := range f.Metric {
		for _, lp := range m.Label {
			labels[lp.GetName()] = true
		}
	}
	for l := range labels {
		documented := row.backticks[l] || (strings.Contains(row.labels, "series") && slices.Contains(seriesLabels, l))
		if !documented {
			t.Errorf("docs/metrics.md:%d: %s has label %s, not in its row", row.line, name, l)
		}
		if freeLabels[l] {
			continue
		}
		for _, v := range labelValues(f, l) {
			if !row.backticks[v] {
				t.Errorf("docs/metrics.md:%d: %s{%s=%q}: the value is not in its row", row.line, name, l, v)
			}
		}
	}
}

func typeName(f *dto.MetricFamily) string {
	return strings.ToLower(f.GetType().String())
}

func labelValues(f *dto.MetricFamily, label string) []string {
	if f == nil {
		return nil
	}
	set := map[string]bool{}
	for _, m := range f.Metric {
		for _, lp := range m.Label {
			if lp.GetName() == label {
				set[lp.GetValue()] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
