package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// TestCardinalityAttack floods the journal with 10,000 distinct fake units (entries with no
// _SYSTEMD_UNIT: the unit label is then SYSLOG_IDENTIFIER, which any local process chooses)
// each with its own rank, four times over with new names each round, while `specwatch run`
// reads every unit. The series cap must hold (the model's 256, the real service's four series
// first among them), every dropped sample must be counted in specwatch_series_dropped_total,
// the real service must still be followed afterwards, and the Go heap must not grow with the
// number of distinct names.
func TestCardinalityAttack(t *testing.T) {
	const (
		capSeries = 256 // model.DefaultMaxSeries
		distinct  = 10000
		rounds    = 4
	)
	j := testjournal.Start(t)
	j.RequireUnits()
	addr := testharness.FreeAddr(t)
	d := testharness.NewDaemon(t, testharness.BuildSpecwatch(t), addr, t.TempDir(), filepath.Join(t.TempDir(), "specwatch.log"),
		"--journal.directory", j.Dir()) // no unit filter: every entry is read, the attacker's too
	d.Start()
	line := func(rank string, ctx int) []byte {
		return fmt.Appendf(nil, "[2026-11-20 09:00:00 %s] Decode batch, #running-req: 1, #token: %d, token usage: 0.01, accept len: 3.00, accept rate: 0.40, cuda graph: True, gen throughput (token/s): 60.00, #queue-req: 0", rank, ctx)
	}
	for r := range 4 {
		j.Write(e2eUnit, "python3", line(fmt.Sprintf("TP%d", r), 100))
	}
	matched := func() float64 {
		body, err := d.Metrics()
		if err != nil {
			t.Fatal(err)
		}
		v, _ := testharness.MetricValue(body, "specwatch_lines_total", `result="matched"`)
		return v
	}
	waitMatched := func(n int) string {
		deadline := time.Now().Add(2 * time.Minute)
		for matched() < float64(n) {
			if time.Now().After(deadline) {
				t.Fatalf("specwatch matched %v lines, want %d", matched(), n)
			}
			time.Sleep(50 * time.Millisecond) // polling a real process
		}
		body, _ := d.Metrics()
		return body
	}
	body := waitMatched(4)
	heap0, _ := testharness.MetricValue(body, "go_memstats_heap_inuse_bytes", "")
	total := 4
	var heaps []float64
	for round := range rounds {
		for i := range distinct {
			// Every round brings 10,000 names never seen before: unit and rank both vary.
			id := round*distinct + i
			if err := j.Send("", fmt.Sprintf("fake-%06d", id), line(fmt.Sprintf("DP%d TP%d", id%97, id/97), 100+id)); err != nil {
				t.Fatal(err)
			}
		}
		j.Sync()
		total += distinct
		body = waitMatched(total)
		h, _ := testharness.MetricValue(body, "go_memstats_heap_inuse_bytes", "")
		heaps = append(heaps, h)
	}
	// The real service still counts after the flood.
	for r := range 4 {
		j.Write(e2eUnit, "python3", line(fmt.Sprintf("TP%d", r), 200))
	}
	total += 4
	body = waitMatched(total)

	series := map[string]bool{}
	for _, m := range testharness.ExpoLine.FindAllStringSubmatch(body, -1) {
		if m[1] == "specwatch_context_tokens" {
			series[m[2]] = true
		}
	}
	dropped, _ := testharness.MetricValue(body, "specwatch_series_dropped_total", "")
	wantDropped := rounds*distinct - (capSeries - 4) // the first 252 fake series got in, once each
	t.Logf("%d distinct fake units×ranks in %d rounds: %d series exported, %v samples dropped (want %d); heap in use %.1f MB before, after each round %s MB",
		rounds*distinct, rounds, len(series), dropped, wantDropped, heap0/(1<<20), mbList(heaps))
	if len(series) > capSeries {
		t.Errorf("%d series exported, cap %d", len(series), capSeries)
	}
	for r := range 4 {
		v, ok := testharness.MetricValue(body, "specwatch_context_tokens", fmt.Sprintf(`rank="TP%d",tp="%d",unit="%s"`, r, r, e2eUnit))
		if !ok || v != 200 {
			t.Errorf("real series TP%d: context %v (present %v), want 200: the flood displaced the real service", r, v, ok)
		}
	}
	if int(dropped) != wantDropped {
		t.Errorf("specwatch_series_dropped_total %v, want %d", dropped, wantDropped)
	}
	// Rounds 2-4 bring 30,000 new names; memory kept per name (a series is a few KB) would
	// show as tens of MB here. The bound leaves room for garbage not yet collected.
	if growth := heaps[len(heaps)-1] - heaps[0]; growth > 8<<20 {
		t.Errorf("heap in use grew %.1f MB over %d more distinct names: memory is not bounded", growth/(1<<20), (rounds-1)*distinct)
	}
}

func mbList(v []float64) string {
	var s []string
	for _, x := range v {
		s = append(s, fmt.Sprintf("%.1f", x/(1<<20)))
	}
	return strings.Join(s, " / ")
}
