package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal"
	"github.com/specwatch/specwatch/model"
)

// Flag is one command-line flag: its name (its config key's, dotted, where it has one), help
// and the value it sets. cmd registers the flags with its parser; the help and defaults live
// here, beside the keys they override.
type Flag struct {
	Name, Help string
	Default    string   // the built-in default, for the help text
	Value      string   // the help text's stand-in for the value, where not derived from Name
	Enum       []string // with Str: the values allowed
	Str        *string
	List       *[]string
	Bool       *bool
	Int        *int
	Dur        *time.Duration
}

// Flags are run's flags, one per key they override.
func (o *Overrides) Flags() []Flag {
	d := Default()
	return []Flag{
		{Name: "config.file", Help: "YAML configuration file; every key is documented in /etc/specwatch/specwatch.yaml", Str: &o.File},
		{Name: "journal.unit", Help: "journal match on _SYSTEMD_UNIT (repeatable, ORed)", List: &o.Units},
		{Name: "journal.identifier", Help: "journal match on SYSLOG_IDENTIFIER (repeatable, ORed)", List: &o.Identifiers},
		{Name: "journal.container", Help: "only entries of containers whose CONTAINER_NAME (else CONTAINER_ID) matches this glob (repeatable, ORed; applied after reading, within the unit and identifier matches)", List: &o.Containers},
		{Name: "journal.directory", Help: "journal directory to read instead of the local journal", Str: &o.JournalDir},
		{Name: "journal.backend", Help: "journal reader: auto, native, sdjournal or journalctl", Default: d.Journal.Backend, Str: &o.Backend},
		{Name: "journal.namespace", Help: "journal namespace to read (as journalctl --namespace; * for all); default: the default namespace only", Str: &o.Namespace},
		{Name: "journal.since", Help: "with no saved position, start here instead of at the tail (RFC 3339, 2006-01-02 15:04:05, or relative: -2h)", Str: &o.Since},
		{Name: "state.directory", Help: "directory for the saved journal and file positions", Default: d.StateDir, Str: &o.StateDir},
		{Name: "web.listen-address", Help: "address of /metrics, the report API and the status page", Default: d.Listen, Str: &o.Listen},
		{Name: "web.config.file", Help: "TLS and basic auth configuration (exporter-toolkit's web config file)", Str: &o.WebConfig},
		{Name: "push.url", Help: "VictoriaMetrics import URL (…/api/v1/import/prometheus); empty: no push", Str: &o.PushURL},
		{Name: "push.label", Help: "extra label k=v on every pushed series (repeatable)", List: &o.PushLabels},
		{Name: "scrape.url", Help: "an engine's /metrics URL to scrape every 5s (repeatable; replaces the config's scrape: list)", List: &o.Scrape},
		{Name: "scrape.label", Help: "label k=v of the --scrape.url targets, to join the series of the engine's logs: unit=llama-server.service, host=… (default: this machine for a loopback URL); unit, container and pod with one --scrape.url only (repeatable)", List: &o.ScrapeLabels},
		{Name: "forward-pass.endpoint", Value: "ENGINE=ENDPOINT", Help: "an engine's forward-pass metrics publisher to subscribe to: vllm=tcp://127.0.0.1:20380 (its --forward-pass-metrics-port; rank r at the port + r) or sglang=ipc:///tmp/sglang-fpm (its --forward-pass-metrics-ipc-name; rank r at PATH.r) (repeatable; replaces the config's forward_pass: list)", List: &o.ForwardPass},
		{Name: "forward-pass.ranks", Value: "RANKS", Help: "the data-parallel ranks of the --forward-pass.endpoint publishers to read: 3, 0-3 or 0,2", Default: "0", Str: &o.ForwardPassRanks},
		{Name: "forward-pass.label", Help: "label k=v of the --forward-pass.endpoint publishers, to join the series of the engine's logs: unit=vllm.service, host=… (default: this machine for a loopback or ipc endpoint); unit, container and pod with one --forward-pass.endpoint only (repeatable)", List: &o.ForwardPassLabels},
		{Name: "file", Help: "follow log files matching this glob like tail -F (repeatable; replaces the config's files: list)", List: &o.Files},
		{Name: "log.level", Help: "debug, info, warn or error", Default: d.Log.Level, Str: &o.LogLevel},
		{Name: "log.format", Help: "auto, json, console or journald", Default: d.Log.Format, Str: &o.LogFormat},
		{Name: "docker", Help: "follow every Docker container's json-file log (docker: in the config sets root and patterns)", Bool: &o.Docker},
		{Name: "kubernetes", Help: "follow every pod's container logs under /var/log/pods (kubernetes: in the config sets root, patterns and annotation scraping)", Bool: &o.Kubernetes},
		{Name: "push.interval", Help: "push period, at least 1s", Default: d.Push.Interval.String(), Dur: &o.PushInterval},
	}
}

// Analyze is analyze's flags as given; Resolve reads their times.
type Analyze struct {
	Format, Color                  string
	Since, Until, StartTime, Zone  string
	MaxSeries                      int
	JournalDir, Backend, Namespace string
	Units, Identifiers, Containers []string
	Labels                         []string
}

// Flags are analyze's flags.
func (a *Analyze) Flags() []Flag {
	return []Flag{
		{Name: "format", Help: "report format: text, json or html (self-contained, with plots)", Default: "text", Enum: []string{"text", "json", "html"}, Str: &a.Format},
		{Name: "color", Help: "colour the text report: auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always or never", Default: "auto", Enum: []string{"auto", "always", "never"}, Str: &a.Color},
		{Name: "journal.directory", Help: "read this journal directory instead of files", Str: &a.JournalDir},
		{Name: "journal.backend", Help: "with --journal.directory: auto, native, sdjournal or journalctl", Default: "auto", Str: &a.Backend},
		{Name: "journal.namespace", Help: "with --journal.directory: read this journal namespace's subdirectories (as journalctl --namespace; * all)", Str: &a.Namespace},
		{Name: "journal.unit", Help: "with --journal.directory: only this _SYSTEMD_UNIT (repeatable)", List: &a.Units},
		{Name: "journal.identifier", Help: "with --journal.directory: only this SYSLOG_IDENTIFIER (repeatable)", List: &a.Identifiers},
		{Name: "journal.container", Help: "with --journal.directory: only containers whose name (else short id) matches this glob (repeatable)", List: &a.Containers},
		{Name: "since", Value: "TIME", Help: "only samples at or after this time (RFC 3339, 2006-01-02 15:04:05, or relative: -2h)", Str: &a.Since},
		{Name: "until", Value: "TIME", Help: "only samples before this time", Str: &a.Until},
		{Name: "start-time", Value: "TIME", Help: "when the engine started, for lines stamped with the time since (llama.cpp's 0.05.071.041, --log-jsonl); default: a file's last such line is at its modification time", Str: &a.StartTime},
		{Name: "timezone", Help: "zone of timestamps written without one (SGLang, vLLM, journalctl short)", Default: "Local", Str: &a.Zone},
		{Name: "model.max-series", Help: "cap on distinct series", Default: strconv.Itoa(model.DefaultMaxSeries), Int: &a.MaxSeries},
		{Name: "label", Value: "KEY=VALUE[:FILE]", Help: "name the series of inputs whose lines do not: host, unit, container, namespace or pod; with :FILE, of that input only (repeatable; a file's unit is otherwise its path)", List: &a.Labels},
	}
}

// AnalyzeInput is what analyze's flags say to read, and when.
type AnalyzeInput struct {
	Location                *time.Location
	Since, Until, StartTime time.Time
	Journal                 *journal.Options // with --journal.directory; else files
	// Labels are --label's, by input path ("": every input).
	Labels map[string]ingest.Identity
}

// Resolve checks analyze's flags, given the files named on the command line, and reads their
// times and labels; its errors name the flag (ErrFlag).
func (a *Analyze) Resolve(files []string) (AnalyzeInput, error) {
	var t AnalyzeInput
	var err error
	if t.Labels, err = inputLabels(a.Labels, files); err != nil {
		return t, err
	}
	if a.MaxSeries <= 0 {
		return t, fmt.Errorf("--model.max-series %d: want at least 1: %w", a.MaxSeries, ErrFlag)
	}
	if a.Format != "text" && a.Format != "json" && a.Format != "html" {
		return t, fmt.Errorf("--format %q: want text, json or html: %w", a.Format, ErrFlag)
	}
	loc, err := time.LoadLocation(a.Zone)
	if err != nil {
		return t, fmt.Errorf("--timezone %q: %v: %w", a.Zone, err, ErrFlag)
	}
	t.Location = loc
	for _, w := range []struct {
		flag, val string
		dst       *time.Time
	}{{"since", a.Since, &t.Since}, {"until", a.Until, &t.Until}, {"start-time", a.StartTime, &t.StartTime}} {
		if *w.dst, err = ParseWhen(w.val, loc); err != nil {
			return t, fmt.Errorf("--%s: %v: %w", w.flag, err, ErrFlag)
		}
	}
	if a.JournalDir == "" {
		return t, nil
	}
	if !t.StartTime.IsZero() {
		return t, fmt.Errorf("--start-time with --journal.directory: journal entries carry their own time; --start-time anchors raw logs: %w", ErrFlag)
	}
	if len(files) > 0 {
		return t, fmt.Errorf("--journal.directory and files: choose one: %w", ErrFlag)
	}
	backend, err := journal.ParseBackend(a.Backend)
	if err != nil {
		return t, fmt.Errorf("--journal.backend: %v: %w", err, ErrFlag)
	}
	t.Journal = &journal.Options{Dir: a.JournalDir, Namespace: a.Namespace, Units: a.Units,
		Identifiers: a.Identifiers, Containers: a.Containers, Backend: backend}
	return t, nil
}

// inputLabels reads --label KEY=VALUE (every input) and KEY=VALUE:FILE (the input FILE, one of
// files; a VALUE may hold ':' where what follows the last one is no input).
func inputLabels(labels, files []string) (map[string]ingest.Identity, error) {
	if len(labels) == 0 {
		return nil, nil
	}
	out := map[string]ingest.Identity{}
	for _, l := range labels {
		k, v, ok := strings.Cut(l, "=")
		path := ""
		if i := strings.LastIndexByte(v, ':'); i >= 0 && slices.Contains(files, v[i+1:]) {
			v, path = v[:i], v[i+1:]
		}
		if !ok || v == "" {
			return nil, fmt.Errorf("--label %q: want KEY=VALUE or KEY=VALUE:FILE: %w", l, ErrFlag)
		}
		id := out[path]
		dst := map[string]*string{"host": &id.Host, "unit": &id.Unit, "container": &id.Container, "namespace": &id.Namespace, "pod": &id.Pod}[k]
		if dst == nil {
			return nil, fmt.Errorf("--label %q: %q is not host, unit, container, namespace or pod: %w", l, k, ErrFlag)
		}
		*dst = v
		out[path] = id
	}
	return out, nil
}
