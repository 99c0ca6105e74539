package web

import (
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
)

// Source is what the server reads besides the metrics: the report for /api/v1/report and the
// minimal page, the ingestion status for /-/ready.
// Each request calls it on its own goroutine while the pipeline keeps applying entries, so
// implementations must be safe for concurrent use, and each call must return a copy the server
// may keep and change (the report filter edits Series in place). The server calls it only while
// it handles a request, between Serve and Serve's return, so the Source must outlive Serve.
// pipeline.State is one. The status page's plots are not read here: ServerOptions.Page renders
// the page from whatever it reads.
type Source interface {
	// Report is the full report, a copy (model.Set.Report).
	Report() model.Report
	// Status is the process-level state of ingestion; /-/ready reads CaughtUp.
	Status() pipeline.Status
}
