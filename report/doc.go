// Package report renders one model.Report three ways: text for a terminal (WriteText), JSON for
// programs (WriteJSON) and a self-contained HTML page with inline SVG plots (WritePage), which is
// both the file `specwatch analyze --format html` writes and the daemon's live status page. It
// imports neither the metrics nor the HTTP server, so writing a report links neither.
package report
