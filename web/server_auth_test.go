package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	config_util "github.com/prometheus/common/config"
	"golang.org/x/crypto/bcrypt"
)

// TestBasicAuthGuessersCannotStarve drives the two lanes step by step (issue 27, item 16: 64
// guessers held a scraper whose login was not cached behind a one-at-a-time queue for 3.5 s).
// An address that failed is throttled while another guess is being checked, at once and
// without a bcrypt check; a scraper from another address is checked in its own lane and let
// through; every refusal is counted by reason.
func TestBasicAuthGuessersCannotStarve(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("right"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	users := map[string]config_util.Secret{"prometheus": config_util.Secret(hash)}
	reg := prometheus.NewRegistry()
	a := newBasicAuth(newAuthFailures(reg))
	req := func(addr, pass string) *http.Request {
		r := httptest.NewRequest("GET", "/metrics", nil)
		r.RemoteAddr = addr + ":40000"
		r.SetBasicAuth("prometheus", pass)
		return r
	}
	if got := a.allow(users, req("10.0.0.66", "guess1")); got != authRefused {
		t.Fatalf("first guess: %v, want refused", got)
	}
	// Another guess of that address is being checked: the guessers' lane is taken.
	a.guessing <- struct{}{}
	start := time.Now()
	if got := a.allow(users, req("10.0.0.66", "guess2")); got != authThrottled {
		t.Errorf("a guess while the guessers' lane is busy: %v, want throttled", got)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("throttling took %v: it must not wait", d)
	}
	// The scraper, not cached yet, passes beside them.
	if got := a.allow(users, req("10.0.0.7", "right")); got != authOK {
		t.Errorf("the scraper: %v, want ok", got)
	}
	<-a.guessing
	// Once its lane is free the guesser is checked (and refused) again; a minute later it is
	// no longer marked.
	if got := a.allow(users, req("10.0.0.66", "guess3")); got != authRefused {
		t.Errorf("a guess with the lane free: %v, want refused", got)
	}
	a.now = func() time.Time { return time.Now().Add(2 * guessWindow) }
	a.guessing <- struct{}{}
	if got := a.allow(users, req("10.0.0.66", "right")); got != authOK {
		t.Errorf("the same address a while later, right password: %v, want ok", got)
	}
	<-a.guessing
	c := a.failures
	if w, th := testutil.ToFloat64(c.WithLabelValues("wrong")), testutil.ToFloat64(c.WithLabelValues("throttled")); w != 2 || th != 1 {
		t.Errorf("failures: wrong %v throttled %v, want 2 and 1", w, th)
	}
	// A waiting check gives up with its request.
	for range cap(a.clean) {
		a.clean <- struct{}{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := a.allow(users, req("10.0.0.8", "not cached").WithContext(ctx)); got != authRefused {
		t.Errorf("a request gone while waiting: %v, want refused", got)
	}
}
