package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest/scrape"
)

func TestScrapeConfig(t *testing.T) {
	cfg, err := Load(writeConfig(t, `
scrape:
  - url: http://127.0.0.1:8000/metrics
    labels: {host: gpu-07, unit: vllm.service}
  - url: http://127.0.0.1:30000/metrics
    interval: 2s
  - url: http://127.0.0.1:8080/metrics
    interval: 15s
    timeout: 10s
  - url: http://127.0.0.1:8001/prometheus/metrics
    iteration_stats_url: http://127.0.0.1:8001/metrics
    interval: 10s
    timeout: 5s
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []scrape.Target{
		{URL: "http://127.0.0.1:8000/metrics", Interval: 5 * time.Second, Timeout: 3 * time.Second, Labels: map[string]string{"host": "gpu-07", "unit": "vllm.service"}},
		{URL: "http://127.0.0.1:30000/metrics", Interval: 2 * time.Second, Timeout: 2 * time.Second},
		{URL: "http://127.0.0.1:8080/metrics", Interval: 15 * time.Second, Timeout: 10 * time.Second},
		{URL: "http://127.0.0.1:8001/prometheus/metrics", Interval: 10 * time.Second, Timeout: 5 * time.Second, IterStatsURL: "http://127.0.0.1:8001/metrics"},
	}
	if got, err := cfg.ScrapeTargets(); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("targets\n%+v\nwant\n%+v", got, want)
	}
	old := cfg
	cfg.Scrape = cfg.Scrape[:1]
	if k := RestartKeys(old, cfg); !reflect.DeepEqual(k, []string{"scrape"}) {
		t.Errorf("restart keys %v", k)
	}
}

func TestScrapeConfigErrors(t *testing.T) {
	for _, c := range []struct{ body, key string }{
		{"scrape:\n  - url: ftp://127.0.0.1/metrics\n", "scrape[0].url"},
		{"scrape:\n  - url: 127.0.0.1:8000\n", "scrape[0].url"},
		{"scrape:\n  - url: http://127.0.0.1:1/m\n  - url: http://127.0.0.1:1/m\n", "scrape[1].url"},
		{"scrape:\n  - url: http://127.0.0.1:1/m\n    interval: 100ms\n", "scrape[0].interval"},
		{"scrape:\n  - url: http://127.0.0.1:1/m\n    interval: 5s\n    timeout: 6s\n", "scrape[0].timeout"},
		{"scrape:\n  - url: http://127.0.0.1:1/m\n    timeout: -1s\n", "scrape[0].timeout"},
		{"scrape:\n  - url: http://127.0.0.1:1/m\n    labels: {rank: TP0}\n", "scrape[0].labels.rank"},
		{"scrape:\n  - url: http://127.0.0.1:1/m\n    bearer: x\n", "bearer"},
		{"scrape:\n  - url: http://127.0.0.1:1/m\n    tls: {ca_file: /x}\n", "scrape[0].tls"},
		{"scrape:\n  - url: https://127.0.0.1:1/m\n    tls: {cert_file: /x}\n", "scrape[0].tls"},
		{"scrape:\n  - url: https://127.0.0.1:1/m\n    basic_auth: {username: u}\n", "scrape[0].basic_auth"},
		{"scrape:\n  - url: https://127.0.0.1:1/m\n    bearer_token_file: /t\n    basic_auth: {username: u, password_file: /p}\n", "scrape[0].basic_auth"},
		{"scrape:\n  - url: http://127.0.0.1:1/m\n    iteration_stats_url: /metrics\n", "scrape[0].iteration_stats_url"},
		{"scrape:\n  - url: http://127.0.0.1:1/m\n    iteration_stats_url: http://10.0.0.2:1/metrics\n", "scrape[0].iteration_stats_url"},
	} {
		_, err := Load(writeConfig(t, c.body))
		if err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%q: error %v, want it to name %q", c.body, err, c.key)
		}
	}
}

// TestScrapeSecrets: the token and password files are read when the targets are built (not by
// check-config), without their trailing newline; a missing one is an error naming the key.
func TestScrapeSecrets(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "token"), []byte("s3cret\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "pw"), []byte("pw"), 0o600)
	cfg, err := Load(writeConfig(t, "scrape:\n"+
		"  - url: https://127.0.0.1:1/m\n    bearer_token_file: "+filepath.Join(dir, "token")+"\n    tls: {server_name: gpu-07, insecure_skip_verify: true}\n"+
		"  - url: http://127.0.0.1:2/m\n    basic_auth: {username: prom, password_file: "+filepath.Join(dir, "pw")+"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := cfg.ScrapeTargets()
	if err != nil {
		t.Fatal(err)
	}
	if got[0].BearerToken != "s3cret" || got[0].TLS == nil || got[0].TLS.ServerName != "gpu-07" || !got[0].TLS.InsecureSkipVerify {
		t.Errorf("target 0: %+v", got[0])
	}
	if got[1].Username != "prom" || got[1].Password != "pw" || got[1].TLS != nil {
		t.Errorf("target 1: %+v", got[1])
	}
	cfg.Scrape[1].BasicAuth.PasswordFile = filepath.Join(dir, "missing")
	if _, err := cfg.ScrapeTargets(); err == nil || !strings.Contains(err.Error(), "scrape[1].basic_auth.password_file") {
		t.Errorf("missing password file: %v", err)
	}
	cfg.Scrape[0].TLS.CAFile = filepath.Join(dir, "token")
	if _, err := cfg.ScrapeTargets(); err == nil || !strings.Contains(err.Error(), "scrape[0].tls") {
		t.Errorf("a CA file without PEM: %v", err)
	}
}
