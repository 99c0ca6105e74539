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

// ready answers 200 once ingestion has caught up with its inputs (the figures describe the
// present) and every configured source can read something, and 503 with the reason otherwise,
// so that a load balancer or an alert on readiness neither trusts a daemon still replaying its
// backlog nor one that reads nothing (a typo'd glob, a unit that selects nothing).
func (s *Server) ready(w http.ResponseWriter, _ *http.Request) {
	why := ""
	if s.opts.Unready != nil {
		why = s.opts.Unready()
	}
	if why == "" && !s.opts.Source.Status().CaughtUp {
		why = "ingestion has not caught up with its input yet"
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if why != "" {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "Not ready: "+why+"\n")
		return
	}
	io.WriteString(w, "Ready\n")
}
