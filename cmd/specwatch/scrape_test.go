package main

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/alecthomas/kingpin/v2"
	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/daemon"
)

func TestScrapeFlagReplacesTheList(t *testing.T) {
	app := kingpin.New("t", "")
	f := config.Overrides{Given: map[string]bool{}}
	config.AddFlags(app.Command("run", ""), f.Flags(), f.Given)
	if _, err := app.Parse([]string{"run", "--scrape.url", "http://127.0.0.1:8000/metrics", "--scrape.url", "http://127.0.0.1:30000/metrics"}); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Scrape = []config.ScrapeConfig{{URL: "http://127.0.0.1:1/metrics"}}
	if err := f.Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	got, err := cfg.ScrapeTargets()
	if err != nil || len(got) != 2 || got[0].URL != "http://127.0.0.1:8000/metrics" || got[1].Interval != config.DefaultScrapeInterval {
		t.Errorf("targets %+v", got)
	}
}

// TestScrapeLabelFlag: --scrape.label labels the --scrape.url targets; a unit (one engine's)
// is refused on several targets, as are a label without a target or without a value, and a
// key the config does not know.
func TestScrapeLabelFlag(t *testing.T) {
	load := func(args ...string) (config.Config, error) {
		app := kingpin.New("t", "")
		f := config.Overrides{Given: map[string]bool{}}
		config.AddFlags(app.Command("run", ""), f.Flags(), f.Given)
		if _, err := app.Parse(append([]string{"run"}, args...)); err != nil {
			t.Fatal(err)
		}
		return f.Load()
	}
	cfg, err := load("--scrape.url", "http://127.0.0.1:8080/metrics", "--scrape.label", "unit=llama-server.service", "--scrape.label", "host=gpu07")
	if err != nil || len(cfg.Scrape) != 1 || fmt.Sprint(cfg.Scrape[0].Labels) != "map[host:gpu07 unit:llama-server.service]" {
		t.Errorf("targets %+v, %v", cfg.Scrape, err)
	}
	cfg, err = load("--scrape.url", "http://127.0.0.1:8000/metrics", "--scrape.url", "http://127.0.0.1:8001/metrics", "--scrape.label", "host=gpu07")
	if err != nil || len(cfg.Scrape) != 2 || cfg.Scrape[1].Labels["host"] != "gpu07" {
		t.Errorf("a host on two targets: %+v, %v", cfg.Scrape, err)
	}
	for _, bad := range [][]string{
		{"--scrape.label", "unit=llama-server.service"},
		{"--scrape.url", "http://127.0.0.1:8000/metrics", "--scrape.url", "http://127.0.0.1:8001/metrics", "--scrape.label", "unit=a.service"},
		{"--scrape.url", "http://127.0.0.1:8000/metrics", "--scrape.label", "unit"},
		{"--scrape.url", "http://127.0.0.1:8000/metrics", "--scrape.label", "unit="},
		{"--scrape.url", "http://127.0.0.1:8000/metrics", "--scrape.label", "job=llama"},
	} {
		if _, err := load(bad...); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// fakeVLLM is a vLLM engine on loopback whose counters grow by 100 drafts, 300 draft tokens and
// 150 accepted tokens a scrape (commit length 2.5); skip moves them on by n scrapes' worth.
func fakeVLLM() (engine *httptest.Server, skip func(n float64)) {
	var mu sync.Mutex
	n := 0.0
	engine = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
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
	return engine, func(k float64) { mu.Lock(); n += k; mu.Unlock() }
}

// TestRunScrapes: `run` with a scrape target on loopback (a vLLM engine whose counters grow
// by 100 drafts and 150 accepted tokens a scrape) reports the engine's series, on this host,
// with commit length 2.5 and exports the target's health.
func TestRunScrapes(t *testing.T) {
	engine, _ := fakeVLLM()
	defer engine.Close()
	cfgPath := filepath.Join(t.TempDir(), "specwatch.yaml")
	os.WriteFile(cfgPath, []byte("scrape:\n  - url: "+engine.URL+"/metrics\n    interval: 1s\n    labels: {unit: vllm.service}\n"), 0o644)
	p := startRun(t, "--config.file", cfgPath, "--journal.directory", t.TempDir(), "--state.directory", t.TempDir())
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
			// a loopback target is this machine, named as the journal and file entries name it
			if s.Labels["engine"] == "vllm" && s.Labels["rank"] == "Engine 000" && s.Labels["unit"] == "vllm.service" &&
				s.Labels["host"] == daemon.NodeName() && s.CommitLen != nil {
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

// TestRunScrapesAnnotatedPods: with the kubernetes preset and scrape_annotations, run lists
// the node's pods from the API server (a loopback TLS stand-in serving a PodList: no control
// plane runs here) with the service account's token, and scrapes the annotated pod's engine
// into a series labelled with its namespace, pod and container.
func TestRunScrapesAnnotatedPods(t *testing.T) {
	var scrapes atomic.Int64
	engine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n := float64(scrapes.Add(1))
		fmt.Fprintf(w, "# TYPE vllm:spec_decode_num_drafts_total counter\nvllm:spec_decode_num_drafts_total{engine=\"0\",model_name=\"m\"} %g\n"+
			"# TYPE vllm:spec_decode_num_accepted_tokens_total counter\nvllm:spec_decode_num_accepted_tokens_total{engine=\"0\",model_name=\"m\"} %g\n"+
			"# TYPE vllm:spec_decode_num_draft_tokens_total counter\nvllm:spec_decode_num_draft_tokens_total{engine=\"0\",model_name=\"m\"} %g\n", 100*n, 150*n, 300*n)
	}))
	defer engine.Close()
	eu, _ := url.Parse(engine.URL)
	var auth, selector string
	var mu sync.Mutex
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth, selector = r.Header.Get("Authorization"), r.URL.Query().Get("fieldSelector")
		mu.Unlock()
		fmt.Fprintf(w, `{"kind":"PodList","items":[{"metadata":{"name":"vllm-0","namespace":"llm","annotations":{"specwatch.io/scrape":"true","specwatch.io/port":"%s"}},
"spec":{"nodeName":"gpu07","containers":[{"name":"vllm","ports":[{"containerPort":%s}]}]},"status":{"phase":"Running","podIP":"127.0.0.1"}}]}`, eu.Port(), eu.Port())
	}))
	defer api.Close()
	dir := t.TempDir()
	caPath, tokenPath := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "token")
	os.WriteFile(caPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.Certificate().Raw}), 0o644)
	os.WriteFile(tokenPath, []byte("sa-token\n"), 0o600)
	cfgPath := filepath.Join(dir, "specwatch.yaml")
	os.WriteFile(cfgPath, []byte("kubernetes:\n  enabled: true\n  root: "+t.TempDir()+"\n  scrape_annotations: true\n  refresh: 1s\n"+
		"  api_server: "+api.URL+"\n  token_file: "+tokenPath+"\n  ca_file: "+caPath+"\n"), 0o644)
	t.Setenv("NODE_NAME", "gpu07")
	p := startRun(t, "--config.file", cfgPath, "--state.directory", t.TempDir())
	defer func() {
		if t.Failed() {
			t.Log(p.logs())
		}
	}()
	eventually(t, "the annotated pod's series", func() bool {
		m := get(p.url("/metrics"))
		return strings.Contains(m, `specwatch_scrape_up{target="`+engine.URL+`/metrics"} 1`) &&
			strings.Contains(m, `container="vllm"`) && strings.Contains(m, `namespace="llm"`) && strings.Contains(m, `pod="vllm-0"`)
	})
	mu.Lock()
	defer mu.Unlock()
	if auth != "Bearer sa-token" || selector != "spec.nodeName=gpu07" {
		t.Errorf("API request: authorization %q, field selector %q", auth, selector)
	}
}

// TestRunScrapeSeriesContinue: a series fed only by scraping continues after a clean restart
// from the model saved at the stop — its samples and commit length are there before the first
// new scrape — and counts on from there; the engine's counters, which kept growing, are a new
// baseline, not a delta over the downtime.
func TestRunScrapeSeriesContinue(t *testing.T) {
	engine, skip := fakeVLLM()
	defer engine.Close()
	cfgPath := filepath.Join(t.TempDir(), "specwatch.yaml")
	os.WriteFile(cfgPath, []byte("scrape:\n  - url: "+engine.URL+"/metrics\n    interval: 1s\n    labels: {unit: vllm.service}\n"), 0o644)
	state, journalDir := t.TempDir(), t.TempDir()
	samples := func(p *proc) int64 {
		r := p.report(t)
		if len(r.Series) != 1 || r.Series[0].CommitLen == nil {
			return 0
		}
		return r.Series[0].Samples
	}
	p := startRun(t, "--config.file", cfgPath, "--journal.directory", journalDir, "--state.directory", state)
	eventually(t, "three scrapes' samples", func() bool { return samples(p) >= 3 })
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.wait(); err != nil {
		t.Fatalf("first daemon: %v\n%s", err, p.logs())
	}
	skip(1000) // the engine served on while specwatch was down
	before := p.logs()
	q := startRun(t, "--config.file", cfgPath, "--journal.directory", journalDir, "--state.directory", state)
	eventually(t, "the restarted daemon ready", func() bool { return ready(q.url("/-/ready")) })
	saved := samples(q)
	if saved < 3 || !strings.Contains(q.logs(), "model restored from the snapshot") {
		t.Fatalf("after the restart, before a new scrape: %d samples\nfirst daemon:\n%s\nrestarted:\n%s", saved, before, q.logs())
	}
	eventually(t, "new scrapes on top", func() bool { return samples(q) >= saved+2 })
	if r := q.report(t); r.Series[0].CommitLen.Last != 2.5 || r.Series[0].CommitLen.Mean != 2.5 {
		t.Errorf("commit length %+v after the restart; the engine's 2.5 throughout (the downtime is no delta)", r.Series[0].CommitLen)
	}
}
