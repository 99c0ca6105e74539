package config

import (
	"errors"
	"fmt"
	"maps"
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
