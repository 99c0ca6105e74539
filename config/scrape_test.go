package config

import (
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
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []scrape.Target{
		{URL: "http://127.0.0.1:8000/metrics", Interval: 5 * time.Second, Timeout: 3 * time.Second, Labels: map[string]string{"host": "gpu-07", "unit": "vllm.service"}},
		{URL: "http://127.0.0.1:30000/metrics", Interval: 2 * time.Second, Timeout: 2 * time.Second},
		{URL: "http://127.0.0.1:8080/metrics", Interval: 15 * time.Second, Timeout: 10 * time.Second},
	}
	if got := cfg.ScrapeTargets(); !reflect.DeepEqual(got, want) {
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
	} {
		_, err := Load(writeConfig(t, c.body))
		if err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%q: error %v, want it to name %q", c.body, err, c.key)
		}
	}
}
