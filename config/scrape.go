package config

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/specwatch/specwatch/ingest/scrape"
	"github.com/specwatch/specwatch/internal/urlshow"
)

// ScrapeBasicAuth is a target's basic auth; the password is read from a file at start.
type ScrapeBasicAuth struct {
	Username     string `yaml:"username"`
	PasswordFile string `yaml:"password_file"`
}

// ScrapeTLS is an https target's client TLS: roots, a client certificate, the name to verify.
type ScrapeTLS struct {
	CAFile             string `yaml:"ca_file"`
	CertFile           string `yaml:"cert_file"`
	KeyFile            string `yaml:"key_file"`
	ServerName         string `yaml:"server_name"`
	InsecureSkipVerify bool   `yaml:"insecure_skip_verify"`
}

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
		} else if seen[u.String()] {
			bad(key+".url", "%q: listed twice", urlshow.String(u))
		} else {
			seen[u.String()] = true
		}
		s = s.withDefaults()
		if s.Interval < time.Second || s.Interval > time.Hour {
			bad(key+".interval", "%s: want 1s to 1h", s.Interval)
		}
		if s.Timeout <= 0 || s.Timeout > s.Interval {
			bad(key+".timeout", "%s: want more than 0 and no more than the interval (%s)", s.Timeout, s.Interval)
		}
		if s.IterationStatsURL != "" {
			su, err := url.Parse(s.IterationStatsURL)
			if err != nil || (su.Scheme != "http" && su.Scheme != "https") || su.Host == "" {
				bad(key+".iteration_stats_url", "%q: want an http:// or https:// URL (TensorRT-LLM's /metrics)", s.IterationStatsURL)
			} else if u != nil && su.Host != u.Host {
				bad(key+".iteration_stats_url", "%q: not the host of the url (%s): one engine serves both", urlshow.String(su), u.Host)
			}
		}
		for _, n := range []struct {
			name string
			v    int
		}{{"tp_size", s.TPSize}, {"pp_size", s.PPSize}, {"ep_size", s.EPSize}} {
			if n.v < 0 {
				bad(key+"."+n.name, "%d: want 1 or more (0: as many as the exposition shows)", n.v)
			}
		}
		for k := range s.Labels {
			switch k {
			case "host", "unit", "container", "namespace", "pod":
			default:
				bad(key+".labels."+k, "unknown label: want host, unit, container, namespace or pod")
			}
		}
		if s.BearerTokenFile != "" && s.BasicAuth != nil {
			bad(key+".basic_auth", "set either bearer_token_file or basic_auth, not both")
		}
		if a := s.BasicAuth; a != nil && (a.Username == "" || a.PasswordFile == "") {
			bad(key+".basic_auth", "want both username and password_file")
		}
		if t := s.TLS; t != nil {
			if (t.CertFile == "") != (t.KeyFile == "") {
				bad(key+".tls", "want both cert_file and key_file, or neither")
			}
			if err == nil && u.Scheme != "https" {
				bad(key+".tls", "the url is not https://")
			}
		}
	}
}

// ScrapeTargets maps the `scrape:` list onto the scraper's targets, defaults filled, and reads
// the secret and certificate files (at start, so that check-config needs none of them); an
// error names the key.
func (c *Config) ScrapeTargets() ([]scrape.Target, error) {
	var out []scrape.Target
	for i, s := range c.Scrape {
		s = s.withDefaults()
		key := fmt.Sprintf("scrape[%d]", i)
		t := scrape.Target{URL: s.URL, Interval: s.Interval, Timeout: s.Timeout, Labels: s.Labels, IterStatsURL: s.IterationStatsURL,
			SGLang: scrape.Sizes{PP: s.PPSize, TP: s.TPSize, EP: s.EPSize}}
		var err error
		if s.BearerTokenFile != "" {
			if t.BearerToken, err = secret(s.BearerTokenFile); err != nil {
				return nil, fmt.Errorf("%s.bearer_token_file: %w", key, err)
			}
		}
		if a := s.BasicAuth; a != nil {
			t.Username = a.Username
			if t.Password, err = secret(a.PasswordFile); err != nil {
				return nil, fmt.Errorf("%s.basic_auth.password_file: %w", key, err)
			}
		}
		if s.TLS != nil {
			if t.TLS, err = s.TLS.config(); err != nil {
				return nil, fmt.Errorf("%s.tls: %w", key, err)
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// secret reads a token or password file, without its trailing newline.
func secret(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

func (t *ScrapeTLS) config() (*tls.Config, error) {
	c := &tls.Config{ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify, MinVersion: tls.VersionTLS12}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, err
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ca_file %s: no PEM certificate", t.CAFile)
		}
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, err
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}
