package analyze

import (
	"bytes"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sim"
)

// Every output shape of the simulator, read back through ingest and parse, must yield exactly
// the engine lines it wrote as samples and its noise as ignored lines: no loss, no duplicates,
// no misreads, whatever the shape.
func TestEveryShapeReadsBackExactly(t *testing.T) {
	for _, f := range sim.Formats() {
		t.Run(f.String(), func(t *testing.T) {
			sc := sim.Mixed(7, 20000)
			sc.Format = f
			var buf bytes.Buffer
			sum, err := sim.Generate(sc, &buf, nil)
			if err != nil {
				t.Fatal(err)
			}
			engine, noise := int64(sum.EngineLines), int64(sum.NoiseLines)
			a := New(Options{Location: time.UTC})
			if err := a.Read(&buf, f.String(), 2026); err != nil {
				t.Fatal(err)
			}
			r := a.Report()
			in := r.Input
			if in.Malformed != 0 || in.Unreadable != 0 {
				t.Errorf("%d malformed, %d unreadable, want none", in.Malformed, in.Unreadable)
			}
			if in.Samples != engine || in.Ignored != noise {
				t.Errorf("samples %d / ignored %d, simulator wrote %d engine / %d noise lines",
					in.Samples, in.Ignored, engine, noise)
			}
			var perSeries int64
			for _, s := range r.Series {
				perSeries += s.Samples
			}
			if perSeries != in.Samples {
				t.Errorf("series hold %d samples, input %d", perSeries, in.Samples)
			}
		})
	}
}
