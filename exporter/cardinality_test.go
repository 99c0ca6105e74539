package exporter_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/parse"
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
			l := &exporter.Locked{Set: model.NewSet(model.Options{Live: true, MaxSeries: c.modelCap}), Live: true}
			m, err := exporter.NewMetrics(exporter.MetricsOptions{Source: l, MaxSeries: c.exportCap})
			if err != nil {
				t.Fatal(err)
			}
			p := parse.NewParser(parse.Options{})
			st := parse.NewStream(parse.StreamOptions{Year: 2026, Location: time.UTC})
			var s parse.Sample
			var buf []byte
			var seen []int64
			var stepsDropped, steps int64
			exportCap := c.exportCap
			if exportCap == 0 {
				exportCap = model.DefaultMaxSeries
			}
			for i := range distinct {
				buf = append(buf[:0], "Nov 20 09:00:01 gpu07 fake-"...)
				buf = strconv.AppendInt(buf, int64(i), 10)
				buf = append(buf, "[1]: [2026-11-20 09:00:01 TP"...)
				buf = strconv.AppendInt(buf, int64(i), 10)
				buf = append(buf, "] Decode batch, #running-req: 4, #token: 8192, accept len: 2.90, gen throughput (token/s): 120.00, #queue-req: 0"...)
				r := p.Parse(buf, &s)
				if r != parse.Matched {
					t.Fatalf("line %d: %v (%s)", i, r, s.Why)
				}
				st.Resolve(int64(1_795_000_000_000_000+i), nil, nil, &s)
				l.Mu.Lock()
				l.Set.Seen(s.Host, s.Unit, s.Time)
				if se := l.Set.Apply(r, &s); se != nil {
					for len(seen) <= se.ID() {
						seen = append(seen, 0)
					}
					if step, seq := se.StepObserved(); seq != seen[se.ID()] {
						seen[se.ID()] = seq
						m.ObserveStep(se.ID(), se.Labels(), step)
						steps++
						if se.ID() >= exportCap {
							stepsDropped++
						}
					}
				}
				l.Mu.Unlock()
			}
			if steps == 0 {
				t.Fatal("no step observed: the flood does not reach the histogram")
			}
			overflow := l.Set.Overflow()
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
