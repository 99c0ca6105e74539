package web

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	toolkit "github.com/prometheus/exporter-toolkit/web"
	"go.yaml.in/yaml/v2"
	"golang.org/x/time/rate"

	"github.com/specwatch/specwatch/internal/readfile"
)

// serve is exporter-toolkit's web.Serve with basic auth moved inside the handler, so that
// /-/healthy can be exempt (see ServerOptions.WebConfigFile): the same file, parsed the same way,
// the same TLS settings through toolkit.ConfigToTLSConfig, reloaded when the file changed
// (webConfigCache), where the toolkit reads it on every handshake and request. Listen has
// already run toolkit.Validate on the file.
// servingMsg is the one line saying where the daemon serves (the daemon logs no other).
const servingMsg = "serving /metrics, /api/v1/report and the status page"

func (s *Server) serve(ln net.Listener) error {
	addr := ln.Addr().String()
	path := s.opts.WebConfigFile
	if path == "" {
		s.log.Info(servingMsg, "listen", addr, "tls", false, "basic_auth", false)
		return s.srv.Serve(ln)
	}
	c, err := loadWebConfig(path)
	if err != nil {
		return err
	}
	wh := &webHandler{conf: &webConfigCache{path: path}, next: s.handler, s: s, auth: newBasicAuth(newAuthFailures(s.opts.Metrics))}
	if c.RateLimiterConfig.Interval != 0 {
		wh.limiter = rate.NewLimiter(rate.Every(c.RateLimiterConfig.Interval), c.RateLimiterConfig.Burst)
	}
	s.srv.Handler = wh
	if !c.TLSConfig.IsEnabled() {
		s.log.Info(servingMsg, "listen", addr, "tls", false, "basic_auth", len(c.Users) > 0)
		return s.srv.Serve(ln)
	}
	tc, err := toolkit.ConfigToTLSConfig(&c.TLSConfig)
	if err != nil {
		return err
	}
	http2 := c.HTTPConfig.HTTP2
	if !http2 {
		s.srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	}
	tc.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
		c, err := wh.conf.get()
		if err != nil {
			return nil, err
		}
		tc, err := toolkit.ConfigToTLSConfig(&c.TLSConfig)
		if err != nil {
			return nil, err
		}
		// ServeTLS sets ALPN on its own copy of the first config only; without this a reloaded
		// config would silently drop HTTP/2. By the first handshake ServeTLS has registered
		// "h2" unless HTTP/2 is disabled (here or by GODEBUG).
		tc.NextProtos = []string{"http/1.1"}
		if http2 && s.srv.TLSNextProto["h2"] != nil {
			tc.NextProtos = []string{"h2", "http/1.1"}
		}
		return tc, nil
	}
	s.srv.TLSConfig = tc
	s.log.Info(servingMsg, "listen", addr, "tls", true, "http2", http2, "basic_auth", len(c.Users) > 0)
	return s.srv.ServeTLS(ln, "", "")
}

// loadWebConfig reads the web config exactly as exporter-toolkit does (its loader is
// unexported): strict YAML v2, its defaults, file paths relative to the file.
func loadWebConfig(path string) (*toolkit.Config, error) {
	b, err := readfile.Regular(path, maxWebConfigBytes)
	if err != nil {
		return nil, fmt.Errorf("web config: %w", err)
	}
	c := &toolkit.Config{
		TLSConfig:  toolkit.TLSConfig{MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS13},
		HTTPConfig: toolkit.HTTPConfig{HTTP2: true},
	}
	if err := yaml.UnmarshalStrict(b, c); err != nil {
		return nil, fmt.Errorf("web config %s: %w", path, err)
	}
	c.TLSConfig.SetDirectory(filepath.Dir(path))
	return c, nil
}

// maxWebConfigBytes bounds the web config: users, hashes and TLS paths are a few kilobytes.
const maxWebConfigBytes = 1 << 20

// webConfigCache hands out the web config, read again only when the file changed (its identity,
// size or modification time): a stat per request and handshake, never an open that a FIFO
// blocks or a read that /dev/zero makes endless (issue 27, item 9). A file that is not regular
// fails at the stat.
type webConfigCache struct {
	path string
	mu   sync.Mutex
	fi   os.FileInfo // of the file c was read from
	c    *toolkit.Config
}

func (w *webConfigCache) get() (*toolkit.Config, error) {
	fi, err := os.Stat(w.path)
	if err != nil {
		return nil, fmt.Errorf("web config: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("web config %s: not a regular file (%v)", w.path, fi.Mode().Type())
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.c != nil && os.SameFile(w.fi, fi) && w.fi.Size() == fi.Size() && w.fi.ModTime().Equal(fi.ModTime()) {
		return w.c, nil
	}
	c, err := loadWebConfig(w.path)
	if err != nil {
		return nil, err
	}
	w.fi, w.c = fi, c
	return c, nil
}

// webHandler applies the web config to each request, re-reading the file when it changed so
// that an edit takes effect at once: the rate limit, the configured headers, then basic auth on every path but
// /-/healthy. An unreadable file fails closed (500) everywhere but /-/healthy: liveness does
// not depend on the file, and restarting would not help, since Listen would refuse it.
type webHandler struct {
	conf    *webConfigCache
	next    http.Handler
	s       *Server
	limiter *rate.Limiter // rate_limit, read once at start as exporter-toolkit does; nil: none
	auth    *basicAuth
}

func (h *webHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	exempt := r.URL.Path == healthyPath
	c, err := h.conf.get()
	if err != nil {
		h.s.log.Error("reading the web config", "err", err)
		if !exempt {
			http.Error(w, "server configuration error; see the log", http.StatusInternalServerError)
			return
		}
		c = &toolkit.Config{}
	}
	if h.limiter != nil && !h.limiter.Allow() {
		http.Error(w, http.StatusText(http.StatusTooManyRequests), http.StatusTooManyRequests)
		return
	}
	for k, v := range c.HTTPConfig.Header {
		w.Header().Set(k, v)
	}
	if !exempt && len(c.Users) > 0 {
		switch h.auth.allow(c.Users, r) {
		case authRefused:
			h.s.authFailed(r)
			w.Header().Set("WWW-Authenticate", `Basic realm="specwatch", charset="UTF-8"`)
			http.Error(w, http.StatusText(http.StatusUnauthorized), http.StatusUnauthorized)
			return
		case authThrottled:
			w.Header().Set("Retry-After", "1")
			http.Error(w, http.StatusText(http.StatusTooManyRequests), http.StatusTooManyRequests)
			return
		}
	}
	h.next.ServeHTTP(w, r)
}
