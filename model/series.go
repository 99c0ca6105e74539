package model

import (
	"math"
	"time"

	"github.com/specwatch/specwatch/parse"
)

// Series is the model of one rank of one engine process on one host.
type Series struct {
	labels      Labels
	samples     int64
	first, last int64 // Unix ns
	commit      Quantiles
	lastCommit  float64
}

func newSeries(l Labels) *Series {
	return &Series{labels: l, commit: NewQuantiles(QuantilesOptions{})}
}

func (se *Series) observe(s *parse.Sample) {
	se.samples++
	if se.first == 0 || (s.Time != 0 && s.Time < se.first) {
		se.first = s.Time
	}
	if s.Time > se.last {
		se.last = s.Time
	}
	if c, ok := s.Get(parse.Commit); ok {
		se.commit.Add(c)
		se.lastCommit = c
	}
}

func (se *Series) report() SeriesReport {
	r := SeriesReport{
		Labels:    se.labels,
		Samples:   se.samples,
		First:     time.Unix(0, se.first).UTC(),
		Last:      time.Unix(0, se.last).UTC(),
		Anomalies: []AnomalyJSON{},
	}
	if se.commit.Count() > 0 {
		r.CommitLen = &CommitStats{
			Mean: round(se.commit.Mean(), 3),
			P10:  round(se.commit.Quantile(0.10), 3),
			P50:  round(se.commit.Quantile(0.50), 3),
			P90:  round(se.commit.Quantile(0.90), 3),
			Last: se.lastCommit,
		}
	}
	return r
}

// round keeps reports readable and stable across platforms' last-bit differences.
func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
