package web

import (
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/specwatch/specwatch/report"
)

// MaxQueryBytes bounds a request's query string: the longest legitimate one is a handful of
// series filters.
const MaxQueryBytes = 1024

// MaxBodyBytes is as much of a request body as the server reads, only to tell an empty chunked
// body from a real one: no endpoint takes a body.
const MaxBodyBytes = 4 << 10

// MaxScrapesInFlight bounds concurrent /metrics requests; more get 503 rather than queueing
// collection work behind each other.
const MaxScrapesInFlight = 8

// routes builds the handler. Every endpoint is read-only: GET and HEAD only, no request body, a
// bounded query string (guard).
func (s *Server) routes() http.Handler {
	reg := s.opts.Metrics
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:            errorLog{s},
		ErrorHandling:       promhttp.ContinueOnError, // one bad metric must not blank the scrape
		Registry:            reg,                      // promhttp_metric_handler_errors_total
		MaxRequestsInFlight: MaxScrapesInFlight,
		// OpenMetrics when the scraper asks for it; protobuf, and with it native histograms,
		// is negotiated by Accept like any other format.
		EnableOpenMetrics: true,
	})
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	mux.HandleFunc("GET /api/v1/report", s.serveReport)
	mux.HandleFunc("GET "+healthyPath, healthy)
	mux.HandleFunc("GET /-/ready", s.ready)
	mux.HandleFunc("GET /{$}", s.page)
	return guard(mux)
}

// guard rejects what no endpoint accepts before any work is done, on every path, so that a
// confused or hostile client learns early and cheaply: another method than GET or HEAD (405),
// an oversized query string (414), a request body (413 beyond MaxBodyBytes, where reading
// stops and the connection is closed; 400 below). Headers are bounded by the server
// (MaxHeaderBytes, 431).
func guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method "+r.Method+" not allowed: every endpoint is read-only (GET, HEAD)", http.StatusMethodNotAllowed)
			return
		}
		if len(r.URL.RawQuery) > MaxQueryBytes {
			http.Error(w, fmt.Sprintf("query string longer than %d bytes", MaxQueryBytes), http.StatusRequestURITooLong)
			return
		}
		if code, msg := checkNoBody(w, r); code != 0 {
			http.Error(w, msg, code)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkNoBody reads at most MaxBodyBytes of r's body and returns a status and message if there
// was any. A declared oversized body is refused unread.
func checkNoBody(w http.ResponseWriter, r *http.Request) (int, string) {
	tooLarge := fmt.Sprintf("request body not allowed (and larger than %d bytes)", MaxBodyBytes)
	if r.ContentLength > MaxBodyBytes {
		return http.StatusRequestEntityTooLarge, tooLarge
	}
	n, err := io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge, tooLarge
	case err != nil:
		return http.StatusBadRequest, "reading the request body failed"
	case n > 0:
		return http.StatusBadRequest, "request body not allowed"
	}
	return 0, ""
}

// page renders the status page (writeRendered: into memory, shared by concurrent requests,
// paced, bounded), then writes it. The page takes no parameters, so every request
// shares one key.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	render := s.opts.Page
	if render == nil {
		render = s.minimalPage
	}
	s.writeRendered(w, r, "/", "text/html; charset=utf-8", "rendering the status page", render)
}

// minimalPage lists the endpoints and each series' verdict; it stands in until the plotted
// status page is wired through ServerOptions.Page.
func (s *Server) minimalPage(w io.Writer) error {
	rep := s.opts.Source.Report()
	fmt.Fprint(w, `<!doctype html><html><head><meta charset="utf-8"><title>specwatch</title></head><body>
<h1>specwatch</h1><p><a href="metrics">metrics</a> · <a href="api/v1/report">report (JSON)</a> · <a href="-/ready">ready</a></p><ul>`)
	esc := func(s string) string { return html.EscapeString(report.VisibleBidi(s)) } // as the full page does
	for _, se := range rep.Series {
		l := se.Labels
		fmt.Fprintf(w, "<li>%s %s %s %s: %s</li>\n", esc(l.Host), esc(l.Unit), esc(l.Engine), esc(l.Rank), esc(se.Verdict))
	}
	_, err := fmt.Fprint(w, "</ul></body></html>\n")
	return err
}

// errorLog adapts promhttp's logger to slog.
type errorLog struct{ s *Server }

func (e errorLog) Println(v ...any) { e.s.log.Error("serving /metrics", "err", fmt.Sprint(v...)) }
