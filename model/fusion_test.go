package model

import (
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sample"
)

// llamaScrape is what ingest/scrape gives for llama.cpp over an interval in which requests
// finished: a spec sample with the requests' tok/s, accepted and drafted tokens, per position,
// and no commit length.
func llamaScrape(i int, acc, drafted float64) *sample.Sample {
	s := &sample.Sample{Kind: sample.KindSpec, Engine: sample.EngineLlamaCpp, Source: sample.SourceMetrics,
		Host: []byte("gpu07"), Unit: []byte("llama-server.service"), Time: reqT0 + int64(i)*int64(time.Second) + 1}
	s.Set(sample.GenTPS, 300)
	s.Set(sample.Accepted, acc)
	s.Set(sample.Drafted, drafted)
	s.Set(sample.AcceptRate, acc/drafted)
	s.NPos = copy(s.PerPos[:], []float64{0.6, 0.3})
	return s
}

// TestLlamaCppFusion: a llama.cpp series read through its logs and its /metrics is one series
// whose commit length, accept rate, step and tok/s are the requests' (the scrape's acceptance
// gives way to the logs, whichever came first), per position the counters'; a broken draft
// seen by the counters alone does not raise commit_len_stuck once requests speak; a restart
// seen by both is one event.
func TestLlamaCppFusion(t *testing.T) {
	for _, scrapeFirst := range []bool{false, true} {
		set, logs := NewSet(Options{}), NewSet(Options{})
		for i := range draftRun {
			r := req{}.withDraftRun(i)
			if scrapeFirst {
				set.Observe(llamaScrape(i, 0, 200)) // would be "Accepted: 0" every time
			}
			set.Observe(r.sample(i))
			logs.Observe(r.sample(i))
			if !scrapeFirst {
				set.Observe(llamaScrape(i, 0, 200))
			}
		}
		at := reqT0 + int64(len(draftRun))*int64(time.Second)
		for _, src := range []sample.Source{sample.SourceLog, sample.SourceMetrics} {
			set.Observe(&sample.Sample{Kind: sample.KindEvent, Event: sample.EventRestart, Engine: sample.EngineLlamaCpp, Source: src,
				Host: []byte("gpu07"), Unit: []byte("llama-server.service"), Time: at})
			at += int64(10 * time.Second)
		}
		rep, lo := set.wordedReport(), logs.wordedReport().Series[0]
		if len(rep.Series) != 1 {
			t.Fatalf("scrape first %v: %d series", scrapeFirst, len(rep.Series))
		}
		s := rep.Series[0]
		if s.Sources == nil || s.Sources.CommitLen != "logs" || s.Sources.Step != "logs" || s.Sources.PerPosition != "metrics" {
			t.Errorf("scrape first %v: sources %+v", scrapeFirst, s.Sources)
		}
		if *s.CommitLen != *lo.CommitLen || *s.TPS != *lo.TPS || *s.StepModel != *lo.StepModel {
			t.Errorf("scrape first %v: commit %+v tok/s %+v step %+v, the logs alone %+v %+v %+v", scrapeFirst,
				s.CommitLen, s.TPS, s.StepModel, lo.CommitLen, lo.TPS, lo.StepModel)
		}
		for _, a := range s.Anomalies {
			t.Errorf("scrape first %v: anomaly %+v", scrapeFirst, a)
		}
		if s.PerPosition == nil || len(s.PerPosition.Acceptance) != 2 || s.PerPosition.Acceptance[0] != 0.6 {
			t.Errorf("scrape first %v: per position %+v", scrapeFirst, s.PerPosition)
		}
		if len(s.Events) != 1 || !strings.Contains(s.Explanation, "restarted 1 time") || !strings.Contains(s.Explanation, "it logged its start-up") {
			t.Errorf("scrape first %v: events %+v, explanation %q", scrapeFirst, s.Events, s.Explanation)
		}
	}
}
