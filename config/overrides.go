package config

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"
)

// ErrFlag marks an error in a command-line flag's value (cmd exits 2 on it).
var ErrFlag = errors.New("usage")

// Overrides are `specwatch run`'s flags, named as their config keys are: each replaces its key
// when given (a list when it is not empty, any other value when Given holds its flag name), so
// that a default shown in the help text never overrides the file.
type Overrides struct {
	File                                    string // --config.file
	Units, Identifiers, Containers          []string
	Files, Scrape, ScrapeLabels, PushLabels []string
	ForwardPass, ForwardPassLabels          []string // --forward-pass.endpoint, --forward-pass.label
	ForwardPassRanks                        string   // --forward-pass.ranks
	Docker, Kubernetes                      bool
	JournalDir, Backend, Namespace, Since   string
	StateDir, Listen, WebConfig, PushURL    string
	LogLevel, LogFormat                     string
	PushInterval                            time.Duration
	Given                                   map[string]bool // flag names, without the dashes
}

// Load is the defaults, then the file, then the overrides, then validation: what run starts
// with and what a reload reads again.
func (o *Overrides) Load() (Config, error) {
	cfg := Default()
	if o.File != "" {
		var err error
		if cfg, err = Load(o.File); err != nil {
			return cfg, err
		}
	}
	if err := o.Apply(&cfg); err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("after flags: %w", err)
	}
	return cfg, nil
}

// Apply overrides cfg with the flags that were given.
func (o *Overrides) Apply(cfg *Config) error {
	for _, l := range []struct {
		dst *[]string
		val []string
	}{
		{&cfg.Journal.Units, o.Units}, {&cfg.Journal.Identifiers, o.Identifiers},
		{&cfg.Journal.Containers, o.Containers}, {&cfg.Files, o.Files},
	} {
		if len(l.val) > 0 {
			*l.dst = l.val
		}
	}
	if o.Given["docker"] {
		cfg.Docker.Enabled = o.Docker
	}
	if o.Given["kubernetes"] {
		cfg.Kubernetes.Enabled = o.Kubernetes
	}
	if len(o.Scrape) > 0 {
		cfg.Scrape = nil
		for _, u := range o.Scrape {
			cfg.Scrape = append(cfg.Scrape, ScrapeConfig{URL: u})
		}
	}
	if err := o.scrapeLabels(cfg); err != nil {
		return err
	}
	if err := o.forwardPass(cfg); err != nil {
		return err
	}
	for _, v := range []struct {
		name string
		dst  *string
		val  string
	}{
		{"journal.directory", &cfg.Journal.Dir, o.JournalDir}, {"journal.backend", &cfg.Journal.Backend, o.Backend},
		{"journal.namespace", &cfg.Journal.Namespace, o.Namespace},
		{"journal.since", &cfg.Journal.Since, o.Since}, {"state.directory", &cfg.StateDir, o.StateDir},
		{"web.listen-address", &cfg.Listen, o.Listen}, {"web.config.file", &cfg.WebConfig, o.WebConfig},
		{"push.url", &cfg.Push.URL, o.PushURL}, {"log.level", &cfg.Log.Level, o.LogLevel},
		{"log.format", &cfg.Log.Format, o.LogFormat},
	} {
		if o.Given[v.name] {
			*v.dst = v.val
		}
	}
	if o.Given["push.interval"] {
		cfg.Push.Interval = o.PushInterval
	}
	for _, kv := range o.PushLabels {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("--push.label %q: want key=value: %w", kv, ErrFlag)
		}
		if cfg.Push.Labels == nil {
			cfg.Push.Labels = map[string]string{}
		}
		cfg.Push.Labels[k] = v
	}
	return nil
}

// scrapeLabels gives every --scrape.url target the --scrape.label labels (the keys are checked
// with the config). A unit, container or pod names one engine: on several targets it would make
// their series one.
func (o *Overrides) scrapeLabels(cfg *Config) error {
	if len(o.ScrapeLabels) == 0 {
		return nil
	}
	if len(o.Scrape) == 0 {
		return fmt.Errorf("--scrape.label labels the --scrape.url targets, and none is given: %w", ErrFlag)
	}
	labels := map[string]string{}
	for _, kv := range o.ScrapeLabels {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return fmt.Errorf("--scrape.label %q: want key=value: %w", kv, ErrFlag)
		}
		if k != "host" && len(o.Scrape) > 1 {
			return fmt.Errorf("--scrape.label %s: one engine's, and %d --scrape.url are given (set each target's labels in the config's scrape: list): %w",
				k, len(o.Scrape), ErrFlag)
		}
		labels[k] = v
	}
	for i := range cfg.Scrape {
		cfg.Scrape[i].Labels = maps.Clone(labels)
	}
	return nil
}

// forwardPass replaces the forward_pass: list with the --forward-pass.endpoint publishers
// (ENGINE=ENDPOINT), each with the --forward-pass.ranks ranks and --forward-pass.label labels
// (a unit, container or pod with one endpoint only, as --scrape.label's).
func (o *Overrides) forwardPass(cfg *Config) error {
	if len(o.ForwardPass) == 0 {
		if len(o.ForwardPassLabels) > 0 || o.Given["forward-pass.ranks"] {
			return fmt.Errorf("--forward-pass.label and --forward-pass.ranks apply to the --forward-pass.endpoint publishers, and none is given: %w", ErrFlag)
		}
		return nil
	}
	ranks, err := parseRanks(o.ForwardPassRanks)
	if err != nil {
		return fmt.Errorf("--forward-pass.ranks %q: %v: %w", o.ForwardPassRanks, err, ErrFlag)
	}
	var labels map[string]string
	for _, kv := range o.ForwardPassLabels {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return fmt.Errorf("--forward-pass.label %q: want key=value: %w", kv, ErrFlag)
		}
		if k != "host" && len(o.ForwardPass) > 1 {
			return fmt.Errorf("--forward-pass.label %s: one engine's, and %d --forward-pass.endpoint are given (set each one's labels in the config's forward_pass: list): %w",
				k, len(o.ForwardPass), ErrFlag)
		}
		if labels == nil {
			labels = map[string]string{}
		}
		labels[k] = v
	}
	cfg.ForwardPass = nil
	for _, ep := range o.ForwardPass {
		engine, endpoint, ok := strings.Cut(ep, "=")
		if !ok || engine == "" || endpoint == "" {
			return fmt.Errorf("--forward-pass.endpoint %q: want ENGINE=ENDPOINT (vllm=tcp://127.0.0.1:20380, sglang=ipc:///tmp/sglang-fpm): %w", ep, ErrFlag)
		}
		cfg.ForwardPass = append(cfg.ForwardPass, ForwardPassConfig{Engine: engine, Endpoint: endpoint, Ranks: ranks, Labels: maps.Clone(labels)})
	}
	return nil
}

// parseRanks reads "3", "0-3" or "0,2,4-5"; empty is nil (rank 0).
func parseRanks(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err != nil || a < 0 || b < a || b-a > 1024 {
			return nil, fmt.Errorf("%q: want a rank, a range like 0-3, or a comma-separated list of them", part)
		}
		for r := a; r <= b; r++ {
			out = append(out, r)
		}
	}
	return out, nil
}
