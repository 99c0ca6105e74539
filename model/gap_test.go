package model_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/pipeline"
	"github.com/specwatch/specwatch/report/words"
	"github.com/specwatch/specwatch/sim"
)

// TestGapDoesNotAlarm: a healthy simulated day with a 30-day pause in the middle gives the
// verdicts and anomalies of the same day without it. The baselines forget across the pause;
// the sequential tests warm up again rather than judge the first windows after it against a
// baseline of one window (the pause raised acceptance_drop and DEGRADED). Where the day without
// the pause is "expected" with commit length lower than in the best window, the paused one may
// be "unjudged": that window is from before the pause, which acceptance_drop forgot.
func TestGapDoesNotAlarm(t *testing.T) {
	var buf bytes.Buffer
	if _, err := sim.Generate(sim.HealthyDay(3), &buf, nil); err != nil {
		t.Fatal(err)
	}
	// The second half of the lines, every date in them (journalctl's and the engine's) 30 days
	// later.
	lines := strings.SplitAfter(buf.String(), "\n")
	stamp := regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d`)
	var gap strings.Builder
	for i, l := range lines {
		if i >= len(lines)/2 {
			l = stamp.ReplaceAllStringFunc(l, func(s string) string {
				layout := "2006-01-02 15:04:05"
				if s[10] == 'T' {
					layout = "2006-01-02T15:04:05"
				}
				tm, err := time.Parse(layout, s)
				if err != nil {
					t.Fatal(err)
				}
				return tm.AddDate(0, 0, 30).Format(layout)
			})
		}
		gap.WriteString(l)
	}
	judge := func(data string) map[string]string {
		st := pipeline.NewState(pipeline.StateOptions{})
		if err := pipeline.New(st, pipeline.Options{Year: 2026}).ReadAll(ingest.NewReader(strings.NewReader(data), ingest.ReaderOptions{}), "day"); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		r := st.Report()
		words.Fill(&r)
		for _, s := range r.Series {
			v := s.Verdict
			if v == "unjudged" && strings.Contains(s.Explanation, "after the baseline window") {
				v = "expected"
			}
			for _, a := range s.Anomalies {
				v += " " + string(a.Kind)
			}
			out[s.Labels.Unit+" "+s.Labels.Rank] = v
		}
		return out
	}
	plain, paused := judge(buf.String()), judge(gap.String())
	if len(plain) == 0 {
		t.Fatal("no series")
	}
	for k, v := range plain {
		if paused[k] != v {
			t.Errorf("%s: %q with a 30-day pause, %q without", k, paused[k], v)
		}
	}
}
