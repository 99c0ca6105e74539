package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/alecthomas/kingpin/v2"
	"github.com/specwatch/specwatch/config"
)

func TestScrapeFlagReplacesTheList(t *testing.T) {
	app := kingpin.New("t", "")
	var f runFlags
	f.register(app.Command("run", ""), io.Discard)
	if _, err := app.Parse([]string{"run", "--scrape.url", "http://127.0.0.1:8000/metrics", "--scrape", "http://127.0.0.1:30000/metrics"}); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Scrape = []config.ScrapeConfig{{URL: "http://127.0.0.1:1/metrics"}}
	if err := f.apply(&cfg); err != nil {
		t.Fatal(err)
	}
	got, err := cfg.ScrapeTargets()
	if err != nil || len(got) != 2 || got[0].URL != "http://127.0.0.1:8000/metrics" || got[1].Interval != config.DefaultScrapeInterval {
		t.Errorf("targets %+v", got)
	}
}

// TestRunScrapes: `run` with a scrape target on loopback (a vLLM engine whose counters grow
// by 100 drafts and 150 accepted tokens a scrape) reports the engine's series with commit
// length 2.5 and exports the target's health.
func TestRunScrapes(t *testing.T) {
	var mu sync.Mutex
	n := 0.0
	engine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		n++
		d := n
		mu.Unlock()
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		l := `{engine="0",model_name="m"}`
		for _, c := range []struct {
			name string
			v    float64
		}{{"vllm:spec_decode_num_drafts", 100 * d}, {"vllm:spec_decode_num_draft_tokens", 300 * d}, {"vllm:spec_decode_num_accepted_tokens", 150 * d}} {
			fmt.Fprintf(w, "# HELP %s_total x\n# TYPE %s_total counter\n%s_total%s %.1f\n", c.name, c.name, c.name, l, c.v)
			fmt.Fprintf(w, "# HELP %s_created x\n# TYPE %s_created gauge\n%s_created%s 1.7e+09\n", c.name, c.name, c.name, l)
		}
	}))
	defer engine.Close()
	cfgPath := filepath.Join(t.TempDir(), "specwatch.yaml")
	os.WriteFile(cfgPath, []byte("scrape:\n  - url: "+engine.URL+"/metrics\n    interval: 1s\n    labels: {unit: vllm.service}\n"), 0o644)
	p := startRun(t, "--config", cfgPath, "--journal-dir", t.TempDir(), "--state-dir", t.TempDir())
	var commit float64
	eventually(t, "a vLLM series from the scrape", func() bool {
		var rep struct {
			Series []struct {
				Labels    map[string]string `json:"labels"`
				CommitLen *struct {
					Last float64 `json:"last"`
				} `json:"commit_len"`
			} `json:"series"`
		}
		if json.Unmarshal([]byte(get(p.url("/api/v1/report"))), &rep) != nil {
			return false
		}
		for _, s := range rep.Series {
			if s.Labels["engine"] == "vllm" && s.Labels["rank"] == "Engine 000" && s.Labels["unit"] == "vllm.service" && s.CommitLen != nil {
				commit = s.CommitLen.Last
				return true
			}
		}
		return false
	})
	if commit != 2.5 {
		t.Errorf("commit length %v, want 2.5", commit)
	}
	m := get(p.url("/metrics"))
	for _, want := range []string{
		`specwatch_scrape_up{target="` + engine.URL + `/metrics"} 1`,
		`specwatch_scrape_failures_total{reason="timeout",target="` + engine.URL + `/metrics"} 0`,
		"specwatch_scrape_duration_seconds{",
		"specwatch_scrape_samples_total{",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s\n%s", want, p.logs())
		}
	}
}
