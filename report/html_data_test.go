package report

import (
	"io"
	"testing"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
	"github.com/specwatch/specwatch/sim"
)

// simulate runs a simulator scenario through the pipeline, as `specwatch analyze` does, so
// the page tests see exactly the report and plots the command would render.
func simulate(t testing.TB, sc sim.Scenario) (model.Report, []model.SeriesPlot) {
	t.Helper()
	pr, pw := io.Pipe()
	go func() {
		_, err := sim.Generate(sc, pw, nil)
		pw.CloseWithError(err)
	}()
	defer pr.Close()
	st := pipeline.NewState(pipeline.StateOptions{})
	if err := pipeline.New(st, pipeline.Options{Year: 2026}).ReadAll(ingest.NewReader(pr, ingest.ReaderOptions{Name: sc.Name}), sc.Name); err != nil {
		t.Fatal(err)
	}
	return st.Report(), st.Plots()
}
