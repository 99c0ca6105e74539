package model

import (
	"strings"
	"testing"

	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sample"
)

// TestStartupLineRestartsEveryRank: an engine's start-up line names no rank; it is a restart of
// every rank of that engine on its host, unit and container (each gets the event, and the
// restart comparison starts), and it makes no series of its own. Another unit is untouched.
func TestStartupLineRestartsEveryRank(t *testing.T) {
	m := NewSet(Options{})
	p, st := parse.NewParser(parse.Options{}), parse.NewStream(parse.StreamOptions{Year: 2026})
	var s parse.Record
	feed := func(i int, unit, line string) {
		t.Helper()
		r := p.Parse([]byte(line), &s)
		if r != sample.Matched {
			t.Fatalf("%q: %v (%s)", line, r, s.Why)
		}
		st.Resolve(int64(1_795_000_000_000_000+i*1_000_000), []byte("gpu07"), []byte(unit), &s)
		m.Apply(r, &s.Sample)
	}
	i := 0
	for ; i < 40; i++ {
		for _, rank := range []string{"TP0", "TP1"} {
			feed(i, "sglang.service", "[2026-11-20 09:00:00 "+rank+"] Decode batch, #running-req: 1, #token: 1000, token usage: 0.01, accept len: 3.00, gen throughput (token/s): 60.00, #queue-req: 0")
		}
		feed(i, "other.service", "[2026-11-20 09:00:00 TP0] Decode batch, #running-req: 1, #token: 1000, token usage: 0.01, accept len: 3.00, gen throughput (token/s): 60.00, #queue-req: 0")
	}
	feed(i, "sglang.service", "[2026-11-20 09:10:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2)")
	r := m.wordedReport()
	if len(r.Series) != 3 {
		t.Fatalf("%d series, want the 3 ranks only", len(r.Series))
	}
	for _, se := range r.Series {
		restarted := len(se.Events) == 1 && strings.Contains(se.Events[0].Detail, "start-up line")
		if want := se.Labels.Unit == "sglang.service"; restarted != want {
			t.Errorf("%+v: events %+v, want a restart %v", se.Labels, se.Events, want)
		}
	}
	for _, se := range m.order {
		if pending := se.det.restart.cmp.Pending(); pending != (se.labels.Unit == "sglang.service") {
			t.Errorf("%+v: restart comparison pending %v", se.labels, pending)
		}
	}
}
