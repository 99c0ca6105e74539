package main

import (
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/specwatch/specwatch/config"
)

// runFlags are `specwatch run`'s flags; each overrides its config key when given.
type runFlags struct {
	config                         string
	units, identifiers, pushLabels []string
	containers, scrape, files      []string
	scrapeLabels                   []string
	docker, kubernetes             bool
	journalDir, stateDir, listen   string
	webConfig, pushURL, backend    string
	namespace                      string
	logLevel, logFormat, since     string
	pushInterval                   time.Duration
	set                            given
}

// runFlag is one of run's flags: its name (its config key's, dotted) and help.
type runFlag struct {
	name, help string
	def        string // the built-in default, for the help text
	str        *string
	list       *[]string
}

func (f *runFlags) register(c *kingpin.CmdClause) {
	f.set = given{}
	d := config.Default()
	for _, fl := range []runFlag{
		{name: "config.file", help: "YAML configuration file; every key is documented in /etc/specwatch/specwatch.yaml", str: &f.config},
		{name: "journal.unit", help: "journal match on _SYSTEMD_UNIT (repeatable, ORed)", list: &f.units},
		{name: "journal.identifier", help: "journal match on SYSLOG_IDENTIFIER (repeatable, ORed)", list: &f.identifiers},
		{name: "journal.container", help: "only entries of containers whose CONTAINER_NAME (else CONTAINER_ID) matches this glob (repeatable, ORed; applied after reading, within the unit and identifier matches)", list: &f.containers},
		{name: "journal.directory", help: "journal directory to read instead of the local journal", str: &f.journalDir},
		{name: "journal.backend", help: "journal reader: auto, native, sdjournal or journalctl", def: d.Journal.Backend, str: &f.backend},
		{name: "journal.namespace", help: "journal namespace to read (as journalctl --namespace; * for all); default: the default namespace only", str: &f.namespace},
		{name: "journal.since", help: "with no saved position, start here instead of at the tail (RFC 3339, 2006-01-02 15:04:05, or relative: -2h)", str: &f.since},
		{name: "state.directory", help: "directory for the saved journal and file positions", def: d.StateDir, str: &f.stateDir},
		{name: "web.listen-address", help: "address of /metrics, the report API and the status page", def: d.Listen, str: &f.listen},
		{name: "web.config.file", help: "TLS and basic auth configuration (exporter-toolkit's web config file)", str: &f.webConfig},
		{name: "push.url", help: "VictoriaMetrics import URL (…/api/v1/import/prometheus); empty: no push", str: &f.pushURL},
		{name: "push.label", help: "extra label k=v on every pushed series (repeatable)", list: &f.pushLabels},
		{name: "scrape.url", help: "an engine's /metrics URL to scrape every 5s (repeatable; replaces the config's scrape: list)", list: &f.scrape},
		{name: "scrape.label", help: "label k=v of the --scrape.url targets, to join the series of the engine's logs: unit=llama-server.service, host=… (default: this machine for a loopback URL); unit, container and pod with one --scrape.url only (repeatable)", list: &f.scrapeLabels},
		{name: "file", help: "follow log files matching this glob like tail -F (repeatable; replaces the config's files: list)", list: &f.files},
		{name: "log.level", help: "debug, info, warn or error", def: d.Log.Level, str: &f.logLevel},
		{name: "log.format", help: "auto, json, console or journald", def: d.Log.Format, str: &f.logFormat},
	} {
		// kingpin shows a default in the placeholder's place ("--log.level=info").
		fc := c.Flag(fl.name, fl.help).Action(f.set.mark(fl.name))
		if fl.def != "" {
			fc = fc.Default(fl.def)
		} else {
			fc = fc.PlaceHolder(placeholder(fl.name))
		}
		if fl.str != nil {
			fc.StringVar(fl.str)
		} else {
			fc.StringsVar(fl.list)
		}
	}
	c.Flag("docker", "follow every Docker container's json-file log (docker: in the config sets root and patterns)").
		Action(f.set.mark("docker")).BoolVar(&f.docker)
	c.Flag("kubernetes", "follow every pod's container logs under /var/log/pods (kubernetes: in the config sets root, patterns and annotation scraping)").
		Action(f.set.mark("kubernetes")).BoolVar(&f.kubernetes)
	c.Flag("push.interval", "push period, at least 1s").Default(d.Push.Interval.String()).
		Action(f.set.mark("push.interval")).SetValue(duration{"push.interval", &f.pushInterval})
}

// placeholder is the help text's stand-in for a flag's value.
func placeholder(name string) string {
	switch {
	case strings.HasSuffix(name, ".file"):
		return "FILE"
	case strings.HasSuffix(name, ".directory"):
		return "DIR"
	case strings.HasSuffix(name, "address"):
		return "[HOST]:PORT"
	case strings.HasSuffix(name, "url"):
		return "URL"
	}
	return strings.ToUpper(name[strings.LastIndexByte(name, '.')+1:])
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
	if len(f.files) > 0 {
		cfg.Files = f.files
	}
	if given("docker") {
		cfg.Docker.Enabled = f.docker
	}
	if given("kubernetes") {
		cfg.Kubernetes.Enabled = f.kubernetes
	}
	if len(f.scrape) > 0 {
		cfg.Scrape = nil
		for _, u := range f.scrape {
			cfg.Scrape = append(cfg.Scrape, config.ScrapeConfig{URL: u})
		}
	}
	if err := f.applyScrapeLabels(cfg); err != nil {
		return err
	}
	for _, o := range []struct {
		name string
		dst  *string
		val  string
	}{
		{"journal.directory", &cfg.Journal.Dir, f.journalDir}, {"journal.backend", &cfg.Journal.Backend, f.backend},
		{"journal.namespace", &cfg.Journal.Namespace, f.namespace},
		{"journal.since", &cfg.Journal.Since, f.since}, {"state.directory", &cfg.StateDir, f.stateDir},
		{"web.listen-address", &cfg.Listen, f.listen}, {"web.config.file", &cfg.WebConfig, f.webConfig},
		{"push.url", &cfg.Push.URL, f.pushURL}, {"log.level", &cfg.Log.Level, f.logLevel},
		{"log.format", &cfg.Log.Format, f.logFormat},
	} {
		if given(o.name) {
			*o.dst = o.val
		}
	}
	if given("push.interval") {
		cfg.Push.Interval = f.pushInterval
	}
	for _, kv := range f.pushLabels {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("--push.label %q: want key=value: %w", kv, errUsage)
		}
		if cfg.Push.Labels == nil {
			cfg.Push.Labels = map[string]string{}
		}
		cfg.Push.Labels[k] = v
	}
	return nil
}

// applyScrapeLabels gives every --scrape.url target the --scrape.label labels (the keys are
// checked with the config). A unit, container or pod names one engine: on several targets it
// would make their series one.
func (f *runFlags) applyScrapeLabels(cfg *config.Config) error {
	if len(f.scrapeLabels) == 0 {
		return nil
	}
	if len(f.scrape) == 0 {
		return fmt.Errorf("--scrape.label labels the --scrape.url targets, and none is given: %w", errUsage)
	}
	labels := map[string]string{}
	for _, kv := range f.scrapeLabels {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return fmt.Errorf("--scrape.label %q: want key=value: %w", kv, errUsage)
		}
		if k != "host" && len(f.scrape) > 1 {
			return fmt.Errorf("--scrape.label %s: one engine's, and %d --scrape.url are given (set each target's labels in the config's scrape: list): %w",
				k, len(f.scrape), errUsage)
		}
		labels[k] = v
	}
	for i := range cfg.Scrape {
		cfg.Scrape[i].Labels = maps.Clone(labels)
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
