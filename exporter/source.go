package exporter

import (
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
)

// Source is what the exporter reads: the scrape collector calls Snapshot and Status on every
// gather (each /metrics request and each push), on the gatherer's goroutine, while the pipeline
// keeps applying entries; it never holds what they return past the gather. Implementations must
// be safe for concurrent use and return copies, so that nothing the exporter holds aliases the
// model. The Source must outlive the Metrics built on it: a gather may run until the server and
// the pusher have stopped. pipeline.State is the implementation; the HTTP server reads its
// own interface, web.Source.
type Source interface {
	// Snapshot appends a copy of every series to dst[:0] and returns it (model.Set.Snapshot).
	Snapshot(dst []model.SeriesSnapshot) []model.SeriesSnapshot
	// Status is the process-level state of ingestion.
	Status() pipeline.Status
}
