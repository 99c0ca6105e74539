package main

import (
	"strings"

	"github.com/alecthomas/kingpin/v2"
	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/internal/cliargs"
)

// runFlags are `specwatch run`'s flags, registered into the config's overrides: each
// replaces its config key when given.
type runFlags struct{ config.Overrides }

// runFlag is one of run's flags: its name (its config key's, dotted) and help.
type runFlag struct {
	name, help string
	def        string // the built-in default, for the help text
	str        *string
	list       *[]string
}

func (f *runFlags) register(c *kingpin.CmdClause) {
	f.Given = map[string]bool{}
	d := config.Default()
	for _, fl := range []runFlag{
		{name: "config.file", help: "YAML configuration file; every key is documented in /etc/specwatch/specwatch.yaml", str: &f.File},
		{name: "journal.unit", help: "journal match on _SYSTEMD_UNIT (repeatable, ORed)", list: &f.Units},
		{name: "journal.identifier", help: "journal match on SYSLOG_IDENTIFIER (repeatable, ORed)", list: &f.Identifiers},
		{name: "journal.container", help: "only entries of containers whose CONTAINER_NAME (else CONTAINER_ID) matches this glob (repeatable, ORed; applied after reading, within the unit and identifier matches)", list: &f.Containers},
		{name: "journal.directory", help: "journal directory to read instead of the local journal", str: &f.JournalDir},
		{name: "journal.backend", help: "journal reader: auto, native, sdjournal or journalctl", def: d.Journal.Backend, str: &f.Backend},
		{name: "journal.namespace", help: "journal namespace to read (as journalctl --namespace; * for all); default: the default namespace only", str: &f.Namespace},
		{name: "journal.since", help: "with no saved position, start here instead of at the tail (RFC 3339, 2006-01-02 15:04:05, or relative: -2h)", str: &f.Since},
		{name: "state.directory", help: "directory for the saved journal and file positions", def: d.StateDir, str: &f.StateDir},
		{name: "web.listen-address", help: "address of /metrics, the report API and the status page", def: d.Listen, str: &f.Listen},
		{name: "web.config.file", help: "TLS and basic auth configuration (exporter-toolkit's web config file)", str: &f.WebConfig},
		{name: "push.url", help: "VictoriaMetrics import URL (…/api/v1/import/prometheus); empty: no push", str: &f.PushURL},
		{name: "push.label", help: "extra label k=v on every pushed series (repeatable)", list: &f.PushLabels},
		{name: "scrape.url", help: "an engine's /metrics URL to scrape every 5s (repeatable; replaces the config's scrape: list)", list: &f.Scrape},
		{name: "scrape.label", help: "label k=v of the --scrape.url targets, to join the series of the engine's logs: unit=llama-server.service, host=… (default: this machine for a loopback URL); unit, container and pod with one --scrape.url only (repeatable)", list: &f.ScrapeLabels},
		{name: "file", help: "follow log files matching this glob like tail -F (repeatable; replaces the config's files: list)", list: &f.Files},
		{name: "log.level", help: "debug, info, warn or error", def: d.Log.Level, str: &f.LogLevel},
		{name: "log.format", help: "auto, json, console or journald", def: d.Log.Format, str: &f.LogFormat},
	} {
		// kingpin shows a default in the placeholder's place ("--log.level=info").
		fc := c.Flag(fl.name, fl.help).Action(cliargs.Given(f.Given).Mark(fl.name))
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
		Action(cliargs.Given(f.Given).Mark("docker")).BoolVar(&f.Docker)
	c.Flag("kubernetes", "follow every pod's container logs under /var/log/pods (kubernetes: in the config sets root, patterns and annotation scraping)").
		Action(cliargs.Given(f.Given).Mark("kubernetes")).BoolVar(&f.Kubernetes)
	c.Flag("push.interval", "push period, at least 1s").Default(d.Push.Interval.String()).
		Action(cliargs.Given(f.Given).Mark("push.interval")).SetValue(cliargs.Duration{Name: "push.interval", D: &f.PushInterval})
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

func (f *runFlags) load() (config.Config, error) { return f.Overrides.Load() }

func (f *runFlags) apply(cfg *config.Config) error { return f.Overrides.Apply(cfg) }
