package exporter_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
)

// Cardinality attack through the exporter: 10,000 fake units and ranks go through the model and
// the step histogram the way the pipeline feeds them, and the exposition must carry at most
// the cap's worth of series label sets, with every dropped sample and step observation in
// specwatch_series_dropped_total.
func TestCardinalityExposition(t *testing.T) {
	const distinct = 10_000
	for _, c := range []struct {
		name                string
		modelCap, exportCap int // 0: the default
		want                int // label sets exposed
	}{
		{"default caps", 0, 0, model.DefaultMaxSeries},
		{"configured model cap", 40, 0, 40},
		{"exporter cap below the model's", 0, 100, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := pipeline.NewState(pipeline.StateOptions{Live: true, Model: model.Options{MaxSeries: c.modelCap}})
			m, err := exporter.NewMetrics(exporter.MetricsOptions{Source: l, MaxSeries: c.exportCap})
			if err != nil {
				t.Fatal(err)
			}
			exportCap := c.exportCap
			if exportCap == 0 {
				exportCap = model.DefaultMaxSeries
			}
			steps := &countedSteps{m: m, cap: exportCap}
			var buf bytes.Buffer
			for i := range distinct {
				fmt.Fprintf(&buf, "Nov 20 09:00:01 gpu07 fake-%d[1]: [2026-11-20 09:00:01 TP%d] Decode batch, #running-req: 4, #token: 8192, accept len: 2.90, gen throughput (token/s): 120.00, #queue-req: 0\n", i, i)
			}
			rd := ingest.NewReader(&buf, ingest.ReaderOptions{})
			p := pipeline.New(l, pipeline.Options{Year: 2026, Steps: steps})
			if err := p.Follow(context.Background(), pipeline.Input{Source: pipeline.ReaderSource(rd)}); err != nil {
				t.Fatal(err)
			}
			if in := l.Status().Input; in.Samples != distinct {
				t.Fatalf("%d samples, want all %d lines matched: %+v", in.Samples, distinct, in)
			}
			stepsDropped := steps.dropped
			if steps.n == 0 {
				t.Fatal("no step observed: the flood does not reach the histogram")
			}
			overflow := l.Status().Overflow
			modelCap := c.modelCap
			if modelCap == 0 {
				modelCap = model.DefaultMaxSeries
			}
			if overflow != int64(distinct-modelCap) {
				t.Errorf("model overflow %d, want %d", overflow, distinct-modelCap)
			}
			if m.CachedObservers() > exportCap {
				t.Errorf("%d cached step observers, cap %d", m.CachedObservers(), exportCap)
			}

			mfs, err := m.Registry().Gather()
			if err != nil {
				t.Fatal(err)
			}
			sets := map[[4]string]bool{}
			for _, mf := range mfs {
				perFamily := map[[4]string]bool{}
				for _, mt := range mf.Metric {
					var k [4]string
					has := false
					for _, lp := range mt.Label {
						switch lp.GetName() {
						case "host":
							k[0], has = lp.GetValue(), true
						case "unit":
							k[1] = lp.GetValue()
						case "engine":
							k[2] = lp.GetValue()
						case "rank":
							k[3] = lp.GetValue()
						}
					}
					if has {
						sets[k], perFamily[k] = true, true
					}
				}
				if len(perFamily) > c.want {
					t.Errorf("%s: %d series label sets, cap %d", mf.GetName(), len(perFamily), c.want)
				}
			}
			if len(sets) != c.want {
				t.Errorf("exposition: %d series label sets, want %d", len(sets), c.want)
			}
			got := gatherValue(t, m.Registry(), "specwatch_series_dropped_total", nil)
			if want := float64(overflow + stepsDropped); got != want {
				t.Errorf("specwatch_series_dropped_total = %v, want %d overflow + %d steps", got, overflow, stepsDropped)
			}
			if c.exportCap > 0 && stepsDropped == 0 {
				t.Error("no step observation was dropped by the exporter's own cap")
			}
			t.Logf("%d lines: %d series exposed, %d samples dropped by the model, %d steps by the exporter, %d metric families",
				distinct, len(sets), overflow, stepsDropped, len(mfs))
		})
	}
}

// countedSteps feeds the step histogram as the pipeline does and counts the observations, and
// those past the exporter's series cap.
type countedSteps struct {
	m          *exporter.Metrics
	cap        int
	n, dropped int64
}

func (c *countedSteps) ObserveStep(id int, l model.Labels, seconds float64) {
	c.m.ObserveStep(id, l, seconds)
	c.n++
	if id >= c.cap {
		c.dropped++
	}
}
