package daemon

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/pipeline"
	"github.com/specwatch/specwatch/sim"
)

// logLines decodes a zerolog JSON buffer, one map per line.
func logLines(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("log line %s: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// TestEventsIncidents: the incidents loop (a stuck drafter on gpu07 from 3 to 6 minutes, a
// throughput collapse on gpu08) fed line by line, the events checked every 100 lines as the
// daemon's ticker would: each series appears once, each anomaly opens and clears once, at info
// level, with its kind, severity, times and the report's sentence; expiry once at the end.
// Before, the daemon's whole log was its start-up lines.
func TestEventsIncidents(t *testing.T) {
	var data bytes.Buffer
	if _, err := sim.Generate(sim.Incidents(1), &data, nil); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	st := pipeline.NewState(pipeline.StateOptions{Model: cfg.ModelOptions(true), Live: true})
	p := pipeline.New(st, pipeline.Options{Year: 2026})
	var logs bytes.Buffer
	ev := newEvents(zerolog.New(&logs), st)
	sc := bufio.NewScanner(&data)
	n := 0
	var last time.Time
	for sc.Scan() {
		e := ingest.Entry{Message: sc.Bytes()}
		p.Apply(&e)
		if n++; n%100 == 0 {
			ev.check()
		}
	}
	ev.check()
	for _, s := range st.Report().Series {
		if s.Last.After(last) {
			last = s.Last
		}
	}
	st.Tick(last.Add(time.Hour))
	ev.check()
	ev.check() // nothing changed: nothing logged

	type key struct{ msg, host, kind string }
	count := map[key]int{}
	for _, m := range logLines(t, logs.Bytes()) {
		if m["level"] != "info" {
			t.Errorf("level %v: %v", m["level"], m)
		}
		k := key{m["message"].(string), m["host"].(string), ""}
		if kind, ok := m["kind"].(string); ok {
			k.kind = kind
			if m["summary"] == nil || m["severity"] == nil || m["start"] == nil {
				t.Errorf("an anomaly line without its summary, severity or start: %v", m)
			}
			if k.msg == "anomaly cleared" && (m["end"] == nil || m["duration_seconds"] == nil) {
				t.Errorf("a cleared anomaly without its end and duration: %v", m)
			}
			if kind == "commit_len_stuck" && !strings.Contains(m["summary"].(string), "the drafter contributes nothing") {
				t.Errorf("commit_len_stuck summary %q", m["summary"])
			}
		}
		count[k]++
	}
	stuck, collapse := sim.IncidentsStuckHost, sim.IncidentsCollapseHost
	want := map[key]int{
		{"series appeared", stuck, ""}:                       1,
		{"series appeared", collapse, ""}:                    1,
		{"anomaly opened", stuck, "commit_len_stuck"}:        1,
		{"anomaly cleared", stuck, "commit_len_stuck"}:       1,
		{"anomaly opened", collapse, "throughput_collapse"}:  1,
		{"anomaly cleared", collapse, "throughput_collapse"}: 1,
		{"series expired", stuck, ""}:                        1,
		{"series expired", collapse, ""}:                     1,
	}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%v logged %d times, want %d", k, count[k], n)
		}
	}
	if len(count) != len(want) {
		t.Errorf("events %v, want exactly %v", count, want)
	}
	if t.Failed() {
		t.Logf("log:\n%s", logs.String())
	}
}

// TestEventsBacklog: a backlog read between two checks (a restart resuming from its cursor, a
// file followed from its start) opens and clears episodes the snapshots never see open; each is
// still logged, opened then cleared, once. A series the daemon found at its first check is
// history: its closed episodes are not news, its open ones are.
func TestEventsBacklog(t *testing.T) {
	var data bytes.Buffer
	if _, err := sim.Generate(sim.Incidents(1), &data, nil); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(data.Bytes(), []byte("\n"))
	cfg := config.Default()
	st := pipeline.NewState(pipeline.StateOptions{Model: cfg.ModelOptions(true), Live: true})
	p := pipeline.New(st, pipeline.Options{Year: 2026})
	apply := func(ls [][]byte) {
		for _, l := range ls {
			p.Apply(&ingest.Entry{Message: l})
		}
	}
	count := func(logs *bytes.Buffer) map[string]int {
		n := map[string]int{}
		for _, m := range logLines(t, logs.Bytes()) {
			if kind, ok := m["kind"].(string); ok {
				n[m["message"].(string)+" "+kind]++
			}
		}
		return n
	}

	var logs bytes.Buffer
	ev := newEvents(zerolog.New(&logs), st)
	ev.check() // the daemon's first check: nothing read yet
	apply(lines)
	ev.check() // the whole loop, both episodes opened and cleared, in one interval
	ev.check()
	want := map[string]int{"anomaly opened commit_len_stuck": 1, "anomaly cleared commit_len_stuck": 1,
		"anomaly opened throughput_collapse": 1, "anomaly cleared throughput_collapse": 1}
	if got := count(&logs); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("one check after the backlog: %v, want %v\n%s", got, want, logs.String())
	}

	// A daemon that starts on this state (restored): its first check finds both episodes
	// closed, which is history.
	var later bytes.Buffer
	newEvents(zerolog.New(&later), st).check()
	if got := count(&later); len(got) != 0 {
		t.Errorf("restored series' closed episodes logged again: %v", got)
	}
}
