package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/specwatch/specwatch/config"
)

// listFlag is a repeatable string flag (--unit a --unit b).
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// runFlags are `specwatch run`'s flags; each overrides its config key when given.
type runFlags struct {
	config                         string
	units, identifiers, pushLabels listFlag
	containers, scrape, files      listFlag
	docker, kubernetes             bool
	journalDir, stateDir, listen   string
	webConfig, pushURL, backend    string
	namespace                      string
	logLevel, logFormat, since     string
	pushInterval                   time.Duration
	set                            map[string]bool
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "YAML config file (every key is documented in deploy/specwatch.yaml)")
	fs.Var(&f.units, "unit", "journal match on _SYSTEMD_UNIT (repeatable, ORed)")
	fs.Var(&f.identifiers, "identifier", "journal match on SYSLOG_IDENTIFIER (repeatable, ORed)")
	fs.Var(&f.containers, "container", "only entries of containers whose CONTAINER_NAME (else CONTAINER_ID) matches this glob (repeatable, ORed; applied after reading, within the unit and identifier matches)")
	fs.StringVar(&f.journalDir, "journal-dir", "", "journal directory (default: the local journal)")
	fs.StringVar(&f.backend, "journal-backend", "", "auto, sdjournal, journalctl or native")
	fs.StringVar(&f.namespace, "journal-namespace", "", "read this journal namespace (as journalctl --namespace; * all); default: the default namespace only")
	fs.StringVar(&f.since, "since", "", "with no saved cursor, start here instead of at the tail")
	fs.StringVar(&f.stateDir, "state-dir", "", "directory for the journal cursor")
	fs.StringVar(&f.listen, "listen", "", "HTTP listen address")
	fs.StringVar(&f.webConfig, "web.config.file", "", "TLS and basic auth (exporter-toolkit web config)")
	fs.StringVar(&f.pushURL, "push-url", "", "VictoriaMetrics import URL (…/api/v1/import/prometheus)")
	fs.DurationVar(&f.pushInterval, "push-interval", 0, "push interval")
	fs.Var(&f.pushLabels, "push-label", "extra label k=v on pushed metrics (repeatable)")
	fs.Var(&f.scrape, "scrape", "an engine's /metrics URL to scrape every 5s (repeatable; replaces the config's scrape: list)")
	fs.Var(&f.files, "file", "follow log files matching this glob like tail -F (repeatable; replaces the config's files: list)")
	fs.BoolVar(&f.docker, "docker", false, "follow every Docker container's json-file log (docker: in the config sets root and patterns)")
	fs.BoolVar(&f.kubernetes, "kubernetes", false, "follow every pod's container logs under /var/log/pods (kubernetes: in the config sets root and patterns)")
	fs.StringVar(&f.logLevel, "log-level", "", "debug, info, warn, error")
	fs.StringVar(&f.logFormat, "log-format", "", "auto, json, console, journald")
}

// apply overrides cfg with the flags that were given on the command line.
func (f *runFlags) apply(cfg *config.Config) error {
	given := func(name string) bool { return f.set[name] }
	if len(f.units) > 0 {
		cfg.Journal.Units = f.units
	}
	if len(f.identifiers) > 0 {
		cfg.Journal.Identifiers = f.identifiers
	}
	if len(f.containers) > 0 {
		cfg.Journal.Containers = f.containers
	}
	if len(f.scrape) > 0 {
		cfg.Scrape = nil
		for _, u := range f.scrape {
			cfg.Scrape = append(cfg.Scrape, config.ScrapeConfig{URL: u})
		}
	}
	if len(f.files) > 0 {
		cfg.Files = f.files
	}
	if given("docker") {
		cfg.Docker.Enabled = f.docker
	}
	if given("kubernetes") {
		cfg.Kubernetes.Enabled = f.kubernetes
	}
	for _, o := range []struct {
		name string
		dst  *string
		val  string
	}{
		{"journal-dir", &cfg.Journal.Dir, f.journalDir}, {"journal-backend", &cfg.Journal.Backend, f.backend},
		{"journal-namespace", &cfg.Journal.Namespace, f.namespace},
		{"since", &cfg.Journal.Since, f.since}, {"state-dir", &cfg.StateDir, f.stateDir},
		{"listen", &cfg.Listen, f.listen}, {"web.config.file", &cfg.WebConfig, f.webConfig},
		{"push-url", &cfg.Push.URL, f.pushURL}, {"log-level", &cfg.Log.Level, f.logLevel},
		{"log-format", &cfg.Log.Format, f.logFormat},
	} {
		if given(o.name) {
			*o.dst = o.val
		}
	}
	if given("push-interval") {
		cfg.Push.Interval = f.pushInterval
	}
	for _, kv := range f.pushLabels {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("--push-label %q: want key=value: %w", kv, errUsage)
		}
		if cfg.Push.Labels == nil {
			cfg.Push.Labels = map[string]string{}
		}
		cfg.Push.Labels[k] = v
	}
	return nil
}

// loadRunConfig is defaults, then the file, then the flags, then validation.
func (f *runFlags) load() (config.Config, error) {
	cfg := config.Default()
	if f.config != "" {
		var err error
		if cfg, err = config.Load(f.config); err != nil {
			return cfg, err
		}
	}
	if err := f.apply(&cfg); err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("after flags: %w", err)
	}
	return cfg, nil
}

func setFlags(fs *flag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { m[fl.Name] = true })
	return m
}
