package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/demo"
)

// TestDemoScrapesVLLM: the demo scrapes its simulated vLLM engine's /metrics on loopback, and
// the status page, the report and /metrics show that rank's acceptance per position, with the
// advice its num_speculative_tokens 5 earns.
func TestDemoScrapesVLLM(t *testing.T) {
	p := startProc(t, "demo", "--web.listen-address", "127.0.0.1:0", "--speed", "0")
	type series struct {
		Labels      map[string]string `json:"labels"`
		PerPosition *struct {
			Acceptance []float64 `json:"acceptance"`
			Advice     *struct {
				Configured, Suggested int
			} `json:"advice"`
		} `json:"per_position"`
		Sources *struct {
			CommitLen string `json:"commit_len"`
		} `json:"sources"`
	}
	var got series
	eventually(t, "the demo's scraped vLLM rank with its per-position advice", func() bool {
		var rep struct {
			Series []series `json:"series"`
		}
		if json.Unmarshal([]byte(get(p.url("/api/v1/report"))), &rep) != nil {
			return false
		}
		for _, s := range rep.Series {
			if s.Labels["host"] == demo.MetricsHost && s.PerPosition != nil && s.PerPosition.Advice != nil {
				got = s
				return true
			}
		}
		return false
	})
	if got.Labels["unit"] != demo.MetricsUnit || got.Labels["engine"] != "vllm" || got.Labels["rank"] != "Engine 000" {
		t.Errorf("labels %v", got.Labels)
	}
	if len(got.PerPosition.Acceptance) != 5 || got.PerPosition.Advice.Configured != 5 || got.PerPosition.Advice.Suggested != 3 {
		t.Errorf("per position %+v advice %+v", got.PerPosition.Acceptance, got.PerPosition.Advice)
	}
	if got.Sources == nil || got.Sources.CommitLen != "metrics" {
		t.Errorf("sources %+v", got.Sources)
	}
	page := get(p.url("/"))
	if !strings.Contains(page, "acceptance per draft position, ") || !strings.Contains(page, "num_speculative_tokens 5 is too high") {
		t.Error("the status page shows no per-position plot or advice for the scraped rank")
	}
	if m := get(p.url("/metrics")); !regexp.MustCompile(`specwatch_position_accept_ratio\{[^}]*engine="vllm",[^}]*host="demo-gpu03"`).MatchString(m) {
		t.Error("/metrics has no per-position acceptance of the scraped rank")
	}
}
