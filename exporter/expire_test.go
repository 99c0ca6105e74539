package exporter_test

import (
	"fmt"
	"io"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/pipeline"
)

// script is a journal that yields its entries, then ends.
type script struct{ entries []ingest.Entry }

func (s *script) Next(e *ingest.Entry, _ time.Duration) (bool, error) {
	if len(s.entries) == 0 {
		return false, io.EOF
	}
	*e, s.entries = s.entries[0], s.entries[1:]
	return true, nil
}

var epoch = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// decodeAt is an SGLang decode line of unit at t, throughput tps.
func decodeAt(unit string, t time.Time, tps float64) ingest.Entry {
	msg := fmt.Appendf(nil, "[%s TP0] Decode batch, #running-req: 1, #token: 100, token usage: 0.01, accept len: 3.00, accept rate: 0.40, cuda graph: True, gen throughput (token/s): %.2f, #queue-req: 0",
		t.Format(time.DateTime), tps)
	return ingest.Entry{Time: t.UnixMicro(), Host: []byte("gpu01"), Unit: []byte(unit), Message: msg}
}

// gathered is one gather: value by metric name and unit label.
type gathered map[string]map[string]float64

func gather(t *testing.T, m *exporter.Metrics) gathered {
	t.Helper()
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	g := gathered{}
	for _, mf := range mfs {
		for _, mt := range mf.Metric {
			key := ""
			for _, l := range mt.Label {
				switch l.GetName() {
				case "unit":
					key = l.GetValue() + key
				case "kind", "result":
					key += "/" + l.GetValue()
				}
			}
			if g[mf.GetName()] == nil {
				g[mf.GetName()] = map[string]float64{}
			}
			g[mf.GetName()][key] = value(mt)
		}
	}
	return g
}

func value(mt *dto.Metric) float64 {
	switch {
	case mt.Gauge != nil:
		return mt.Gauge.GetValue()
	case mt.Counter != nil:
		return mt.Counter.GetValue()
	}
	return 0
}

// A stopped engine's figures leave /metrics (and so every sum over the fleet) once it has been
// silent for model.expire_after on the daemon's clock; its counters stay at their values. An
// engine silent while its unit keeps logging loses its figures too, but keeps its stale
// anomaly and the last-sample stamp its alert quotes. A new sample brings a series back.
func TestStoppedEngineLeavesTheFleetSum(t *testing.T) {
	now := epoch
	clock := func() time.Time { return now }
	st := pipeline.NewState(pipeline.StateOptions{Live: true, Now: clock})
	m, err := exporter.NewMetrics(exporter.MetricsOptions{Source: st})
	if err != nil {
		t.Fatal(err)
	}
	p := pipeline.New(st, pipeline.Options{Now: clock})
	follow := func(entries []ingest.Entry) {
		t.Helper()
		if err := p.Follow(t.Context(), pipeline.Input{Source: ingest.Poll(&script{entries}, ingest.PollOptions{})}); err != nil {
			t.Fatal(err)
		}
	}
	// Five minutes of three engines, a line every 10 s: a.service 50 tok/s, b 70, c 90.
	var first []ingest.Entry
	for s := 0; s < 300; s += 10 {
		at := epoch.Add(time.Duration(s) * time.Second)
		first = append(first, decodeAt("a.service", at, 50), decodeAt("b.service", at, 70), decodeAt("c.service", at, 90))
	}
	now = epoch.Add(300 * time.Second)
	follow(first)
	before := gather(t, m)
	if got := sum(before["specwatch_generation_tokens_per_second"]); got != 210 {
		t.Fatalf("fleet tok/s %v at the start, want 210", got)
	}
	// Then a.service stops; b keeps its engine logging; c's unit logs, its engine does not.
	var second []ingest.Entry
	for s := 300; s <= 20*60; s += 10 {
		at := epoch.Add(time.Duration(s) * time.Second)
		noise := ingest.Entry{Time: at.UnixMicro(), Host: []byte("gpu01"), Unit: []byte("c.service"), Message: []byte("GET /health 200")}
		second = append(second, decodeAt("b.service", at, 70), noise)
	}
	now = epoch.Add(20 * time.Minute)
	follow(second)
	st.Tick(now) // the live loop's tick, on the daemon's clock
	after := gather(t, m)

	if got := sum(after["specwatch_generation_tokens_per_second"]); got != 70 {
		t.Errorf("fleet tok/s %v after a and c went silent, want 70 (b alone)", got)
	}
	for _, name := range []string{"specwatch_commit_length_tokens", "specwatch_step_seconds", "specwatch_running_requests", "specwatch_context_tokens"} {
		if _, ok := after[name]["a.service"]; ok {
			t.Errorf("%s still exported for the stopped a.service", name)
		}
		if _, ok := after[name]["c.service"]; ok {
			t.Errorf("%s still exported for the silent engine of c.service", name)
		}
		if _, ok := after[name]["b.service"]; !ok {
			t.Errorf("%s missing for b.service, which keeps logging", name)
		}
	}
	if _, ok := after["specwatch_last_sample_timestamp_seconds"]["a.service"]; ok {
		t.Error("a.service, whose unit is gone, still has a last-sample stamp")
	}
	if _, ok := after["specwatch_anomaly_active"]["a.service/stale"]; ok {
		t.Error("a.service, whose unit is gone, still has anomaly gauges")
	}
	if v, ok := after["specwatch_anomaly_active"]["c.service/stale"]; !ok || v != 1 {
		t.Errorf("c.service: stale %v (exported %v), want 1: its engine is silent while the unit logs", v, ok)
	}
	if _, ok := after["specwatch_last_sample_timestamp_seconds"]["c.service"]; !ok {
		t.Error("c.service lost the last-sample stamp its stale alert quotes")
	}
	// Counters never go back, and stay for every series.
	for _, name := range []string{"specwatch_samples_total", "specwatch_anomalies_total", "specwatch_lines_total"} {
		for k, v := range before[name] {
			w, ok := after[name][k]
			if !ok || w < v {
				t.Errorf("%s{%s}: %v before, %v after (exported %v): counters must keep their values", name, k, v, w, ok)
			}
		}
	}
	if a, b := before["specwatch_samples_total"]["a.service/decode"], after["specwatch_samples_total"]["a.service/decode"]; a != 30 || b != 30 {
		t.Errorf("a.service decode samples %v then %v, want 30 both", a, b)
	}

	// a.service starts again: its figures are back with the first sample.
	at := epoch.Add(20*time.Minute + 10*time.Second)
	now = at
	follow([]ingest.Entry{decodeAt("a.service", at, 55)})
	back := gather(t, m)
	if got := back["specwatch_generation_tokens_per_second"]["a.service"]; got != 55 {
		t.Errorf("a.service tok/s %v after it restarted, want 55", got)
	}
	if _, ok := back["specwatch_anomaly_active"]["a.service/stale"]; !ok {
		t.Error("a.service's anomaly gauges did not come back with its sample")
	}
}

func sum(m map[string]float64) float64 {
	var s float64
	for _, v := range m {
		s += v
	}
	return s
}
