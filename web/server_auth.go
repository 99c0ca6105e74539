package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	config_util "github.com/prometheus/common/config"
	"golang.org/x/crypto/bcrypt"
)

// maxAuthCache bounds the remembered credentials; the cache is emptied when it is full. Only
// valid credentials enter it, so a handful of scrapers never fill it; hashes rotated in the
// web config leave stale entries behind, which this clears.
const maxAuthCache = 64

// Failed logins mark their client's address as a guesser for guessWindow; maxGuessers bounds
// the addresses remembered (the map is emptied when full: a flood of addresses only costs them
// their mark).
const (
	guessWindow = time.Minute
	maxGuessers = 4096
)

// authResult is a check's outcome: let through, refused (wrong or no credentials), or refused
// without a check because the client's address failed recently and the guessers' lane is busy.
type authResult uint8

const (
	authOK authResult = iota
	authRefused
	authThrottled
)

// basicAuth checks basic auth credentials against the web config's bcrypt hashes. bcrypt is
// slow by design (tens of ms per check) and a scraper sends the same credentials every time, so
// valid credentials are remembered, under a salted SHA-256 of user, hash and password: no
// password is kept in clear, and a hash changed in the file misses the cache. Failures are not
// remembered (guesses would evict the scrapers' entries).
//
// Checks run in two lanes, so that guessers cannot starve a scraper whose login is not cached
// (after a restart): an address that failed within guessWindow gets one shared slot and no
// queue (429 when busy); the others share GOMAXPROCS slots. 64 guessers once held a scraper
// behind a one-at-a-time queue for 3.5 s, 200 for 10.5 s, past Prometheus's scrape timeout.
type basicAuth struct {
	salt     [16]byte
	clean    chan struct{} // slots for addresses without recent failures
	guessing chan struct{} // the one slot of addresses that failed recently
	now      func() time.Time
	failures *prometheus.CounterVec // specwatch_http_auth_failures_total{reason}; nil: not counted

	mu       sync.Mutex
	valid    map[[sha256.Size]byte]struct{}
	guessers map[string]time.Time // address → its last failure
}

func newBasicAuth(failures *prometheus.CounterVec) *basicAuth {
	a := &basicAuth{valid: make(map[[sha256.Size]byte]struct{}), guessers: make(map[string]time.Time),
		clean: make(chan struct{}, runtime.GOMAXPROCS(0)), guessing: make(chan struct{}, 1), now: time.Now, failures: failures}
	rand.Read(a.salt[:])
	return a
}

// newAuthFailures registers specwatch_http_auth_failures_total on reg (once per registry).
func newAuthFailures(reg prometheus.Registerer) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "specwatch_http_auth_failures_total",
		Help: "Requests refused by basic auth: wrong (credentials checked and wrong, or none) or throttled (an address that failed within the last minute, refused without a check while another of its kind was checked).",
	}, []string{"reason"})
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			return are.ExistingCollector.(*prometheus.CounterVec)
		}
		return nil
	}
	return c
}

// allow checks r's credentials against users (name → bcrypt hash). Nothing of the request's
// credentials is logged or kept in clear.
func (a *basicAuth) allow(users map[string]config_util.Secret, r *http.Request) authResult {
	res := a.check(users, r)
	if a.failures != nil {
		switch res {
		case authRefused:
			a.failures.WithLabelValues("wrong").Inc()
		case authThrottled:
			a.failures.WithLabelValues("throttled").Inc()
		}
	}
	return res
}

func (a *basicAuth) check(users map[string]config_util.Secret, r *http.Request) authResult {
	user, pass, ok := r.BasicAuth()
	if !ok {
		return authRefused
	}
	hash, known := users[user]
	if !known {
		// Check against a real hash anyway, so that the reply takes as long as for a known user
		// (same bcrypt cost) and does not reveal which names exist.
		for _, h := range users {
			hash = h
			break
		}
	}
	key := a.key(user, string(hash), pass)
	addr := remoteHost(r)
	a.mu.Lock()
	_, remembered := a.valid[key]
	last, failed := a.guessers[addr]
	a.mu.Unlock()
	if remembered && known {
		return authOK
	}
	lane := a.clean
	if failed && a.now().Sub(last) < guessWindow {
		lane = a.guessing
		select {
		case lane <- struct{}{}:
		default:
			return authThrottled
		}
	} else {
		select {
		case lane <- struct{}{}:
		case <-r.Context().Done():
			return authRefused
		}
	}
	err := bcrypt.CompareHashAndPassword([]byte(hash), []byte(pass))
	<-lane
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil || !known {
		if len(a.guessers) >= maxGuessers {
			clear(a.guessers)
		}
		a.guessers[addr] = a.now()
		return authRefused
	}
	delete(a.guessers, addr)
	if len(a.valid) >= maxAuthCache {
		clear(a.valid)
	}
	a.valid[key] = struct{}{}
	return authOK
}

// remoteHost is the client's address without its port.
func remoteHost(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}

func (a *basicAuth) key(fields ...string) [sha256.Size]byte {
	h := sha256.New()
	h.Write(a.salt[:])
	for _, f := range fields {
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(f))))
		h.Write([]byte(f))
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// authLog paces the log of failed logins: the first at once, then one line a minute at most
// with the count since, so that a guesser cannot flood the journal.
type authLog struct {
	mu     sync.Mutex
	last   time.Time
	missed int64
}

// authFailed logs a refused login (its address, never its credentials).
func (s *Server) authFailed(r *http.Request) {
	l := &s.authLog
	l.mu.Lock()
	now := time.Now()
	if !l.last.IsZero() && now.Sub(l.last) < time.Minute {
		l.missed++
		l.mu.Unlock()
		return
	}
	missed := l.missed
	l.last, l.missed = now, 0
	l.mu.Unlock()
	s.log.Warn("basic auth refused a request", "remote", remoteHost(r), "path", r.URL.Path, "refused_since_last_logged", missed)
}
