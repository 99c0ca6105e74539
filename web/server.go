// Package web is specwatch's HTTP server: /metrics (the exporter's registry), /api/v1/report,
// /-/healthy, /-/ready and the status page, with TLS, basic auth and response headers from an
// exporter-toolkit web config, and limits on what a client may send or hold. It reads the model
// through Source and serves the page a ServerOptions.Page callback renders.
package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	toolkit "github.com/prometheus/exporter-toolkit/web"
	"github.com/specwatch/specwatch/internal/readfile"
)

// ServerOptions configure NewServer.
type ServerOptions struct {
	// ListenAddress is host:port to listen on (":9877"); port 0 picks a free port, which Addr
	// reports after Listen.
	ListenAddress string
	// WebConfigFile is exporter-toolkit's web configuration (--web.config.file): TLS, basic auth,
	// response headers, rate limit. Empty means plain HTTP without auth. The file is re-read on
	// every request (and TLS certificates on every handshake), so credentials and certificates
	// rotate without restart; http2 and rate_limit are read once, when Serve starts.
	//
	// Basic auth covers every endpoint but /-/healthy, so that a liveness probe (a kubelet, a
	// load balancer) needs no secret. exporter-toolkit v0.20 cannot exempt a path: it wraps the
	// whole handler (exporter-toolkit#111; PRs #70, #106 and #151 never merged). So the toolkit
	// only parses the TLS settings (toolkit.ConfigToTLSConfig) and this package checks the
	// credentials itself (server_auth.go).
	WebConfigFile string
	// Logger receives the server's messages; nil discards them. Nothing logged carries
	// credentials.
	Logger *slog.Logger
	// Source feeds /api/v1/report, the default page and /-/ready. Required.
	Source Source
	// Metrics is the registry served on /metrics (exporter.Metrics.Registry), which the
	// server's own counters join. Required. The server never reads the exporter itself.
	Metrics *prometheus.Registry
	// Page renders the status page on /; nil serves a minimal page with links. It is rendered
	// into memory first, so a failure is a clean 500, not half a page, on a goroutine of its
	// own: one render shared by the requests that arrived before it started, paced, at most
	// MaxRendersInFlight page and report renders at once (render.go).
	Page func(w io.Writer) error
	// Unready, if set, says why a configured source can read nothing ("" when every one can):
	// /-/ready answers 503 with it. /-/ready also waits for Source.Status().CaughtUp.
	Unready func() string
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout replace the constants of the
	// same names when non-zero, so that a test can watch a timeout fire in a second.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
}

// Limits on clients, so that slow or hostile ones cannot hold connections or memory: a header
// must arrive within ReadHeaderTimeout, a request within ReadTimeout, a response (the largest is
// the status page) within WriteTimeout; idle keep-alive connections close after IdleTimeout. Over
// TLS the handshake gets the shortest of the first three (net/http).
//
// There is deliberately no cap on simultaneous connections (netutil.LimitListener): the timeouts
// already bound how long a connection that sends nothing useful lives, so a client holding N of
// them must reopen N connections every few seconds; a cap would instead let that client lock
// Prometheus out with just that many stalled connections, while an uncapped flood has to
// exhaust file descriptors, whose soft limit Go raises to the hard one at start. Per-source
// limits belong in front of the daemon (firewall connlimit, a proxy), which can tell clients
// apart; a listener cap cannot.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 10 * time.Second
	WriteTimeout      = 30 * time.Second
	IdleTimeout       = 60 * time.Second
	// MaxHeaderBytes bounds the request line and headers (net/http allows 4 KiB of slack, then
	// answers 431).
	MaxHeaderBytes = 16 << 10
	// ShutdownTimeout bounds how long Serve waits for in-flight requests once ctx is done.
	ShutdownTimeout = 5 * time.Second
)

// Server serves /metrics, /api/v1/report, /-/healthy, /-/ready and the status page, with TLS
// and basic auth from an exporter-toolkit web config. Lifecycle: Listen binds (and validates the
// web config), Serve returns when ctx is cancelled, after a graceful shutdown, or on a listener
// error; ListenAndServe does both. A Server serves once.
type Server struct {
	opts    ServerOptions
	log     *slog.Logger
	handler http.Handler
	srv     *http.Server
	renders *renderer

	mu sync.Mutex
	ln net.Listener

	authLog authLog // failed logins, logged at most once a minute
}

// NewServer builds the server and its handler; it panics if Source or Metrics is nil, which
// is a wiring bug, not a runtime condition.
func NewServer(opts ServerOptions) *Server {
	if opts.Source == nil || opts.Metrics == nil {
		panic("web: NewServer needs ServerOptions.Source and ServerOptions.Metrics")
	}
	s := &Server{opts: opts, log: opts.Logger, renders: newRenderer(MaxRendersInFlight, MaxRenderBytes)}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.handler = s.routes()
	s.srv = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: orDefault(opts.ReadHeaderTimeout, ReadHeaderTimeout),
		ReadTimeout:       orDefault(opts.ReadTimeout, ReadTimeout),
		WriteTimeout:      orDefault(opts.WriteTimeout, WriteTimeout),
		IdleTimeout:       orDefault(opts.IdleTimeout, IdleTimeout),
		MaxHeaderBytes:    MaxHeaderBytes,
		// "OPTIONS *" goes to guard like any other request (405), not to net/http's built-in
		// answer (200 with no Allow), which would contradict the read-only contract.
		DisableGeneralOptionsHandler: true,
		ErrorLog:                     slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	return s
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// Handler is the server's handler without the web config's TLS, auth and headers (Serve adds
// them): for tests and benchmarks through httptest.
func (s *Server) Handler() http.Handler { return s.handler }

// Listen binds ListenAddress after checking the web config file, so that a bad file or a busy
// port fails at startup with its name.
func (s *Server) Listen() error {
	if f := s.opts.WebConfigFile; f != "" {
		// toolkit.Validate reads with os.ReadFile: a FIFO would block it, /dev/zero fill memory.
		if _, err := readfile.Regular(f, maxWebConfigBytes); err != nil {
			return fmt.Errorf("web config %s: %w", f, err)
		}
		if err := toolkit.Validate(f); err != nil {
			return fmt.Errorf("web config %s: %w", f, err)
		}
	}
	ln, err := net.Listen("tcp", s.opts.ListenAddress)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.opts.ListenAddress, err)
	}
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	return nil
}

// Addr is the bound address ("127.0.0.1:41234") once Listen has succeeded, else "".
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// ListenAndServe is Listen followed by Serve.
func (s *Server) ListenAndServe(ctx context.Context) error {
	if err := s.Listen(); err != nil {
		return err
	}
	return s.Serve(ctx)
}

// Serve serves on the listener bound by Listen until ctx is cancelled, then shuts down
// gracefully (at most ShutdownTimeout) and returns nil; it returns an error if the listener or
// the web config fails.
func (s *Server) Serve(ctx context.Context) error {
	s.mu.Lock()
	ln := s.ln
	s.mu.Unlock()
	if ln == nil {
		return errors.New("web: Serve before Listen")
	}
	errc := make(chan error, 1)
	go func() { errc <- s.serve(ln) }()
	select {
	case err := <-errc:
		ln.Close() // serve leaves it open when the web config fails
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serving on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	err := s.srv.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("shutting down %s: %w", ln.Addr(), err)
	}
	return nil
}

// Shutdown stops the server gracefully; Serve then returns.
func (s *Server) Shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }
