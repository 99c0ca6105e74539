package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/model"
)

// requestSeries is a llama.cpp series of requests: commit length per request and per verify
// step differ, and its n-gram draft states 64 positions, most accepting nothing.
func requestSeries() model.Report {
	t0 := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	acc := make([]float64, 64)
	copy(acc, []float64{0.9, 0.8, 0.5, 0.2})
	return model.Report{Series: []model.SeriesReport{{
		Labels: model.Labels{Host: "gpu07", Unit: "llama-server.service", Engine: "llamacpp"}, Samples: 19,
		First: t0, Last: t0.Add(time.Minute), ContextUnit: "tokens", Anomalies: []model.AnomalyJSON{}, Verdict: "healthy",
		CommitLen:   &model.CommitStats{Mean: 2.81, PooledMean: 2.64, P10: 1.9, P50: 2.7, P90: 3.4, Last: 2.5},
		PerPosition: &model.PerPosition{Acceptance: acc, Conditional: make([]float64, 64), Samples: 19},
	}}}
}

// TestRequestText: both commit lengths where they differ, one where they agree; the positions
// that accept nothing at the end of a long draft are one range.
func TestRequestText(t *testing.T) {
	var b bytes.Buffer
	r := requestSeries()
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"commit length: mean 2.81 per request, 2.64 per verify step, p10 1.90",
		"4: 20 % (×0.00) 5-64: 0 %\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	r.Series[0].CommitLen.PooledMean = 2.812
	b.Reset()
	WriteText(&b, r)
	if !strings.Contains(b.String(), "commit length: mean 2.81, p10") {
		t.Errorf("equal means shown twice:\n%s", b.String())
	}
	b.Reset()
	r.Series[0].CommitLen.PooledMean = 2.64
	if err := WritePage(&b, r, nil, PageOptions{Title: "t", Now: time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC), Version: "v"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, "commit length, mean per request") || !strings.Contains(page, "2.64 per verify step") {
		t.Errorf("page lacks the commit length per verify step")
	}
	// 64 bars of 8 px: no value labels over them, every fourth position numbered
	if n := strings.Count(page, `class="pv`); n != 0 || !strings.Contains(page, "position 64: accepted in 0.0 %") ||
		!strings.Contains(page, `class="xt">64<`) || strings.Contains(page, `class="xt">63<`) {
		t.Errorf("64 positions: %d value labels, or the ticks are not every fourth", n)
	}
}
