package web

import (
	"io"
	"net/http"
)

// healthyPath is the liveness endpoint, the one path basic auth exempts (webHandler).
const healthyPath = "/-/healthy"

// healthy answers 200 for as long as the server serves: liveness says the process is up, not
// that its figures are current (that is /-/ready).
func healthy(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "Healthy\n")
}

// ready answers 200 once ingestion has caught up with the journal (the figures describe the
// present) and 503 before, so that a load balancer or an alert on scrape readiness does not
// trust a daemon still replaying its backlog.
func (s *Server) ready(w http.ResponseWriter, _ *http.Request) {
	ok := false
	if s.opts.Ready != nil {
		ok = s.opts.Ready()
	} else {
		ok = s.opts.Source.Status().CaughtUp
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if !ok {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "Not ready: ingestion has not caught up with its input yet\n")
		return
	}
	io.WriteString(w, "Ready\n")
}
