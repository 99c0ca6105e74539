package report

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sim"
)

// simulate runs a simulator scenario through the same pipeline as `specwatch analyze`
// (cmd/specwatch/analyze.go: ingest → parse → stream resolve → model.Set), so the page tests
// see exactly the report and plots the command would render, without importing cmd.
func simulate(t testing.TB, sc sim.Scenario) (model.Report, []model.SeriesPlot) {
	t.Helper()
	pr, pw := io.Pipe()
	go func() {
		_, err := sim.Generate(sc, pw, nil)
		pw.CloseWithError(err)
	}()
	defer pr.Close()
	rd := ingest.NewReader(pr, ingest.ReaderOptions{Name: sc.Name})
	st := parse.NewStream(parse.StreamOptions{Location: time.UTC, Year: 2026})
	p := parse.NewParser(parse.Options{})
	set := model.NewSet(model.Options{})
	var e ingest.Entry
	var s parse.Sample
	for {
		err := rd.Next(&e)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading %s: %v", sc.Name, err)
		}
		r := p.Parse(e.Message, &s)
		if r != parse.Ignored {
			st.Resolve(e.Time, e.Host, e.Unit, &s)
		}
		set.Apply(r, &s)
	}
	set.CountUnreadable(rd.Stats().Bad)
	return set.Report(), set.Plots()
}
