package config

import (
	"fmt"
	"net/url"
	"time"

	"github.com/specwatch/specwatch/ingest/scrape"
)

// Scrape defaults: an interval of 5 s, a timeout of 3 s (never more than the interval).
const (
	DefaultScrapeInterval = 5 * time.Second
	DefaultScrapeTimeout  = 3 * time.Second
)

// withDefaults fills the zero interval and timeout.
func (s ScrapeConfig) withDefaults() ScrapeConfig {
	if s.Interval == 0 {
		s.Interval = DefaultScrapeInterval
	}
	if s.Timeout == 0 {
		s.Timeout = min(DefaultScrapeTimeout, s.Interval)
	}
	return s
}

func (c *Config) validateScrape(bad func(key, format string, args ...any)) {
	seen := map[string]bool{}
	for i, s := range c.Scrape {
		key := fmt.Sprintf("scrape[%d]", i)
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad(key+".url", "%q: want an http:// or https:// URL", s.URL)
		} else if seen[u.Redacted()] {
			bad(key+".url", "%q: listed twice", u.Redacted())
		} else {
			seen[u.Redacted()] = true
		}
		s = s.withDefaults()
		if s.Interval < time.Second || s.Interval > time.Hour {
			bad(key+".interval", "%s: want 1s to 1h", s.Interval)
		}
		if s.Timeout <= 0 || s.Timeout > s.Interval {
			bad(key+".timeout", "%s: want more than 0 and no more than the interval (%s)", s.Timeout, s.Interval)
		}
		for k := range s.Labels {
			if k != "host" && k != "unit" {
				bad(key+".labels."+k, "unknown label: want host or unit")
			}
		}
	}
}

// ScrapeTargets maps the `scrape:` list onto the scraper's targets, defaults filled.
func (c *Config) ScrapeTargets() []scrape.Target {
	var out []scrape.Target
	for _, s := range c.Scrape {
		s = s.withDefaults()
		out = append(out, scrape.Target{URL: s.URL, Interval: s.Interval, Timeout: s.Timeout, Labels: s.Labels})
	}
	return out
}
