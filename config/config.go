// Package config is specwatch's configuration file: every key has a default (Default), decoding
// is strict (an unknown key is an error, not a silent no-op), and Validate names the offending
// key as the operator wrote it. Only cmd/specwatch reads it; the libraries take the options
// structs it maps onto (ParseOptions, ModelOptions).
package config

import (
	"errors"
	"fmt"
	"net"
	"path"
	"strings"
	"time"

	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sample"
)

// Config is the daemon's configuration file. Flags override the file (cmd/specwatch).
type Config struct {
	Journal   JournalConfig     `yaml:"journal"`
	StateDir  string            `yaml:"state_dir"`
	Listen    string            `yaml:"listen"`
	WebConfig string            `yaml:"web_config_file"`
	Push      PushConfig        `yaml:"push"`
	Log       LogConfig         `yaml:"log"`
	Timezone  string            `yaml:"timezone"`
	Model     ModelConfig       `yaml:"model"`
	Aliases   map[string]string `yaml:"aliases"`
	Rules     []RuleConfig      `yaml:"rules"`
	Scrape    []ScrapeConfig    `yaml:"scrape"`
	// ForwardPass are engines' per-iteration forward-pass metrics publishers to subscribe to.
	ForwardPass []ForwardPassConfig `yaml:"forward_pass"`
	// Files are globs of log files to follow (`--file`); Docker and Kubernetes are the
	// discovery presets (`--docker`, `--kubernetes`).
	Files       []string          `yaml:"files"`
	Docker      PresetConfig      `yaml:"docker"`
	Kubernetes  KubernetesConfig  `yaml:"kubernetes"`
	FileOptions FileOptionsConfig `yaml:"file_options"`
}

// RuleConfig is a regular-expression rule for a log shape no built-in parser knows; its named
// groups are field names (commit_len, step_seconds, context, running, gen_tps, …).
type RuleConfig struct {
	Name     string            `yaml:"name"`
	Match    string            `yaml:"match"`
	Contains string            `yaml:"contains"`
	Kind     string            `yaml:"kind"`
	Units    map[string]string `yaml:"units"`
}

// ScrapeConfig is one engine /metrics endpoint to scrape (the `scrape:` list).
type ScrapeConfig struct {
	URL      string        `yaml:"url"`
	Interval time.Duration `yaml:"interval"`
	Timeout  time.Duration `yaml:"timeout"`
	// Labels: host (instead of the URL's host) and unit, so that the series joins the one the
	// engine's logs make.
	Labels          map[string]string `yaml:"labels"`
	BearerTokenFile string            `yaml:"bearer_token_file"`
	BasicAuth       *ScrapeBasicAuth  `yaml:"basic_auth"`
	TLS             *ScrapeTLS        `yaml:"tls"`
	// IterationStatsURL is TensorRT-LLM's iteration statistics (trtllm-serve's /metrics, JSON,
	// read and drained at every scrape; url is then its /prometheus/metrics).
	IterationStatsURL string `yaml:"iteration_stats_url"`
	// An SGLang deployment's parallel sizes (0: as many as the exposition shows): they name its
	// ranks as the log prefix does where only attention-TP rank 0 exports.
	TPSize int `yaml:"tp_size"`
	PPSize int `yaml:"pp_size"`
	EPSize int `yaml:"ep_size"`
}

// ForwardPassConfig is one engine's forward-pass metrics publishers (the `forward_pass:` list):
// vLLM's --forward-pass-metrics-port, SGLang's --enable-forward-pass-metrics, one ZeroMQ PUB
// socket per data-parallel rank (ingest/fwdpass).
type ForwardPassConfig struct {
	Engine string `yaml:"engine"` // vllm or sglang
	// Endpoint is the engine's setting: tcp://HOST:PORT (vLLM's port; rank r at PORT+r) or
	// ipc://PATH (SGLang's --forward-pass-metrics-ipc-name; rank r at PATH.r).
	Endpoint string `yaml:"endpoint"`
	// Ranks are the data-parallel ranks to read (those on this node); default [0].
	Ranks []int `yaml:"ranks"`
	// Labels: host, unit, container, namespace, pod, as a scrape target's: the series joins
	// the one the engine's logs and /metrics make.
	Labels map[string]string `yaml:"labels"`
	// An SGLang deployment's parallel sizes (0: 1; dp_size 0: the highest rank listed + 1),
	// which name its ranks as its log prefix does; RankLabels name the ranks they do not (by
	// DP rank).
	DPSize      int            `yaml:"dp_size"`
	TPSize      int            `yaml:"tp_size"`
	PPSize      int            `yaml:"pp_size"`
	EPSize      int            `yaml:"ep_size"`
	DPAttention bool           `yaml:"dp_attention"`
	RankLabels  map[int]string `yaml:"rank_labels"`
}

// PresetConfig is a discovery preset (`docker:`, `kubernetes:`): every container's log under
// Root, narrowed by patterns, so that one daemon per GPU node follows the engines and nothing
// else.
type PresetConfig struct {
	Enabled bool   `yaml:"enabled"`
	Root    string `yaml:"root"`
	// Include keeps only containers matching every non-empty list (any pattern of a list);
	// Exclude then drops those matching any pattern.
	Include ContainerPatterns `yaml:"include"`
	Exclude ContainerPatterns `yaml:"exclude"`
}

// KubernetesConfig is the `kubernetes:` preset, and the scrape targets the node's pods ask for
// in their specwatch.io/* annotations (ingest/kubepods; needs the API server: list pods).
type KubernetesConfig struct {
	PresetConfig `yaml:",inline"`
	// ScrapeAnnotations scrapes the node's pods annotated specwatch.io/scrape: "true", found
	// every Refresh from the API server (the pod's service account; NODE_NAME names the node).
	ScrapeAnnotations bool          `yaml:"scrape_annotations"`
	Refresh           time.Duration `yaml:"refresh"`
	// APIServer, TokenFile and CAFile default to the in-cluster ones ("": the API server from
	// KUBERNETES_SERVICE_HOST/PORT, else kubernetes.default.svc; the service account's files).
	APIServer string `yaml:"api_server"`
	TokenFile string `yaml:"token_file"`
	CAFile    string `yaml:"ca_file"`
}

// ContainerPatterns are filepath.Match patterns on a container's identity. Images are known
// for Docker only (config.v2.json), namespaces and pods for Kubernetes only (the path).
type ContainerPatterns struct {
	Containers []string `yaml:"containers"`
	Images     []string `yaml:"images"`
	Namespaces []string `yaml:"namespaces"`
	Pods       []string `yaml:"pods"`
}

// FileOptionsConfig tunes the following of files (`file_options:`).
type FileOptionsConfig struct {
	MaxOpen    int           `yaml:"max_open"`
	RotateWait time.Duration `yaml:"rotate_wait"`
}

// JournalConfig selects what to read.
type JournalConfig struct {
	Dir         string   `yaml:"dir"`
	Units       []string `yaml:"units"`
	Identifiers []string `yaml:"identifiers"`
	Containers  []string `yaml:"containers"`
	Backend     string   `yaml:"backend"`
	Namespace   string   `yaml:"namespace"`
	Since       string   `yaml:"since"`
}

// PushConfig configures the VictoriaMetrics push for fleets.
type PushConfig struct {
	URL      string            `yaml:"url"`
	Interval time.Duration     `yaml:"interval"`
	Labels   map[string]string `yaml:"labels"`
}

// LogConfig configures specwatch's own logging.
type LogConfig struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// ModelConfig exposes the model's thresholds (model.Options); zero keeps the default.
type ModelConfig struct {
	MaxSeries           int           `yaml:"max_series"`
	DecodeLogInterval   int           `yaml:"decode_log_interval"`
	IdleFactor          float64       `yaml:"idle_factor"`
	StuckSamples        int           `yaml:"stuck_samples"`
	InconsistentSamples int           `yaml:"inconsistent_samples"`
	DepthTolerance      float64       `yaml:"depth_tolerance"`
	TPSTolerance        float64       `yaml:"tps_tolerance"`
	Window              int           `yaml:"window"`
	DropMinEffect       float64       `yaml:"drop_min_effect"`
	RegressionMinEffect float64       `yaml:"regression_min_effect"`
	CollapseRatio       float64       `yaml:"collapse_ratio"`
	CollapseSamples     int           `yaml:"collapse_samples"`
	StaleAfter          time.Duration `yaml:"stale_after"`
	SpecOffAfter        time.Duration `yaml:"speculation_off_after"`
	ForecastContexts    []int         `yaml:"forecast_contexts"`
	// Warmup and ExpireAfter are the exceptions to "zero keeps the default": Default sets them,
	// and 0 disables them.
	Warmup      time.Duration `yaml:"warmup"`       // window rebuilt on a restart (docs/restart.md)
	ExpireAfter time.Duration `yaml:"expire_after"` // a silent series' gauges leave /metrics
	// Snapshot: run saves the model beside the positions when it stops, and the next start
	// continues from it (docs/restart.md). Default true.
	Snapshot     bool    `yaml:"snapshot"`
	PositionCost float64 `yaml:"position_cost"`
}

// Defaults of the model keys that 0 disables.
const (
	DefaultWarmup      = 3 * time.Hour
	DefaultExpireAfter = 10 * time.Minute
	// MaxWarmup bounds what a restart replays (docs/restart.md says what a restart costs).
	MaxWarmup = 24 * time.Hour
)

// Default is what specwatch does with no file and no flags.
func Default() Config {
	return Config{
		Journal:    JournalConfig{Backend: "auto"},
		StateDir:   "/var/lib/specwatch",
		Listen:     ":9877",
		Push:       PushConfig{Interval: 15 * time.Second},
		Log:        LogConfig{Level: "info", Format: "auto"},
		Timezone:   "Local",
		Model:      ModelConfig{Warmup: DefaultWarmup, ExpireAfter: DefaultExpireAfter, Snapshot: true},
		Docker:     PresetConfig{Root: DefaultDockerRoot},
		Kubernetes: KubernetesConfig{PresetConfig: PresetConfig{Root: DefaultKubernetesRoot}, Refresh: 30 * time.Second},
	}
}

// Load reads path over the defaults and validates the result.
func Load(path string) (Config, error) {
	cfg := Default()
	data, err := readConfig(path)
	if err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	if err := decodeStrict(data, &cfg); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Validate checks values the types cannot, naming the key.
func (c *Config) Validate() error {
	var errs []string
	bad := func(key, format string, args ...any) { errs = append(errs, key+": "+fmt.Sprintf(format, args...)) }
	switch c.Journal.Backend {
	case "auto", "sdjournal", "journalctl", "native":
	default:
		bad("journal.backend", "%q: want auto, sdjournal, journalctl or native", c.Journal.Backend)
	}
	for i, g := range c.Journal.Containers {
		if _, err := path.Match(g, ""); err != nil || g == "" {
			bad(fmt.Sprintf("journal.containers[%d]", i), "%q: want a container name or a shell glob (*, ?, [a-z]): %v", g, errOr(err, "empty"))
		}
	}
	if ns := c.Journal.Namespace; ns != "*" && strings.ContainsAny(ns, "/.\x00\n") {
		bad("journal.namespace", "%q: a namespace name (no '/' or '.'), or * for all", ns)
	}
	loc, err := time.LoadLocation(c.Timezone)
	if err != nil {
		bad("timezone", "%q: %v", c.Timezone, err)
		loc = time.UTC
	}
	if c.Journal.Since != "" { // read in timezone at run time, so checked in it
		if _, err := ParseWhen(c.Journal.Since, loc); err != nil {
			bad("journal.since", "%v", err)
		}
	}
	if c.StateDir == "" {
		bad("state_dir", "must not be empty (the cursor lives there)")
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		bad("listen", "%q: want host:port or :port (%v)", c.Listen, err)
	}
	if c.Push.URL != "" && !strings.HasPrefix(c.Push.URL, "http://") && !strings.HasPrefix(c.Push.URL, "https://") {
		bad("push.url", "%q: want an http:// or https:// URL", c.Push.URL)
	}
	if c.Push.Interval < time.Second {
		bad("push.interval", "%s: want at least 1s", c.Push.Interval)
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		bad("log.level", "%q: want debug, info, warn or error", c.Log.Level)
	}
	switch c.Log.Format {
	case "auto", "json", "console", "journald":
	default:
		bad("log.format", "%q: want auto, json, console or journald", c.Log.Format)
	}
	c.Model.validate(bad)
	c.validateScrape(bad)
	c.validateForwardPass(bad)
	c.validateFiles(bad)
	for k, v := range c.Aliases {
		if _, err := aliasOf(v); err != nil {
			bad("aliases."+k, "%v", err)
		}
	}
	for i, r := range c.Rules {
		if _, err := r.compile(); err != nil {
			bad(fmt.Sprintf("rules[%d]", i), "%v", err)
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

func (m *ModelConfig) validate(bad func(key, format string, args ...any)) {
	nonNeg := func(key string, v float64) {
		if !(v >= 0 && v <= 1e9) { // NaN too
			bad("model."+key, "%g: want a value between 0 (default) and 1e9", v)
		}
	}
	for key, v := range map[string]int{"max_series": m.MaxSeries, "decode_log_interval": m.DecodeLogInterval,
		"stuck_samples": m.StuckSamples, "inconsistent_samples": m.InconsistentSamples, "window": m.Window,
		"collapse_samples": m.CollapseSamples} {
		nonNeg(key, float64(v))
	}
	for key, v := range map[string]float64{"idle_factor": m.IdleFactor, "depth_tolerance": m.DepthTolerance,
		"tps_tolerance": m.TPSTolerance} {
		nonNeg(key, v)
	}
	for key, v := range map[string]float64{"drop_min_effect": m.DropMinEffect, "regression_min_effect": m.RegressionMinEffect,
		"collapse_ratio": m.CollapseRatio, "position_cost": m.PositionCost} {
		if !(v >= 0 && v < 1) { // NaN too
			bad("model."+key, "%g: want a fraction in [0, 1)", v)
		}
	}
	if m.IdleFactor != 0 && m.IdleFactor <= 1 {
		bad("model.idle_factor", "%g: want > 1", m.IdleFactor)
	}
	if m.StaleAfter < 0 {
		bad("model.stale_after", "%s: must not be negative", m.StaleAfter)
	}
	if m.SpecOffAfter < 0 {
		bad("model.speculation_off_after", "%s: must not be negative", m.SpecOffAfter)
	}
	if m.Warmup < 0 || m.Warmup > MaxWarmup {
		bad("model.warmup", "%s: want 0 (off) to %s", m.Warmup, MaxWarmup)
	}
	if m.ExpireAfter < 0 {
		bad("model.expire_after", "%s: must not be negative (0: never)", m.ExpireAfter)
	}
	for i, c := range m.ForecastContexts {
		if c <= 0 || c > 10_000_000 {
			bad(fmt.Sprintf("model.forecast_contexts[%d]", i), "%d: want 1 to 10,000,000 tokens", c)
		}
	}
}

// aliasOf reads an alias target: a field name as in the report ("commit_len", "step_seconds",
// "context", …), optionally with the unit the custom build prints: "step_seconds/ms".
func aliasOf(v string) (parse.Alias, error) {
	name, unit, _ := strings.Cut(v, "/")
	f, ok := sample.FieldByName(name)
	if !ok {
		return parse.Alias{}, fmt.Errorf("%q: unknown field %q (want one of %s)", v, name, strings.Join(sample.FieldNames(), ", "))
	}
	scale := 1.0
	switch unit {
	case "", "s":
	case "ms":
		scale = 0.001
	case "us":
		scale = 0.000001
	case "percent":
		scale = 0.01
	default:
		return parse.Alias{}, fmt.Errorf("%q: unknown unit %q (want s, ms, us or percent)", v, unit)
	}
	return parse.Alias{Field: f, Scale: scale}, nil
}

// ParseOptions turns the config's aliases and rules into parse.Options (validated already).
func (c *Config) ParseOptions() parse.Options {
	var o parse.Options
	if len(c.Aliases) > 0 {
		o.Aliases = make(map[string]parse.Alias, len(c.Aliases))
		for k, v := range c.Aliases {
			o.Aliases[k], _ = aliasOf(v)
		}
	}
	for _, r := range c.Rules {
		if rule, err := r.compile(); err == nil {
			o.Rules = append(o.Rules, rule)
		}
	}
	return o
}

func (r RuleConfig) compile() (parse.Rule, error) {
	kind := sample.KindDecode
	switch r.Kind {
	case "", "decode":
	case "spec":
		kind = sample.KindSpec
	default:
		return parse.Rule{}, fmt.Errorf("kind %q: want decode or spec", r.Kind)
	}
	units := map[string]float64{}
	for field, u := range r.Units {
		a, err := aliasOf(field + "/" + u)
		if err != nil {
			return parse.Rule{}, fmt.Errorf("units.%s: %w", field, err)
		}
		units[field] = a.Scale
	}
	if r.Name == "" {
		return parse.Rule{}, errors.New("name: must not be empty")
	}
	return parse.NewRule(r.Name, r.Match, r.Contains, kind, units)
}

// ModelOptions maps the config onto model.Options (zero keeps the model's default).
func (c *Config) ModelOptions(live bool) model.Options {
	m := c.Model
	return model.Options{
		Live: live, MaxSeries: m.MaxSeries, DecodeLogInterval: m.DecodeLogInterval, IdleFactor: m.IdleFactor,
		StuckSamples: m.StuckSamples, InconsistentSamples: m.InconsistentSamples, DepthTolerance: m.DepthTolerance,
		TPSTolerance: m.TPSTolerance, Window: m.Window, DropMinEffect: m.DropMinEffect,
		RegressionMinEffect: m.RegressionMinEffect, CollapseRatio: m.CollapseRatio, CollapseSamples: m.CollapseSamples,
		StaleAfter: m.StaleAfter, ForecastContexts: m.ForecastContexts, ExpireAfter: expireAfter(m.ExpireAfter),
		PositionCost: m.PositionCost, SpecOffAfter: m.SpecOffAfter,
	}
}

// errOr is err's text, or what when err is nil.
func errOr(err error, what string) string {
	if err != nil {
		return err.Error()
	}
	return what
}

// expireAfter maps the config's "0: never" onto model.Options' "negative: never".
func expireAfter(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}
