package config

import (
	"fmt"
	"path/filepath"
	"time"
)

// Default roots of the discovery presets.
const (
	DefaultDockerRoot     = "/var/lib/docker/containers"
	DefaultKubernetesRoot = "/var/log/pods"
)

// FileGlobs are the globs `run` follows: `files`, then the presets' layouts.
func (c *Config) FileGlobs() []string {
	globs := append([]string(nil), c.Files...)
	if c.Docker.Enabled {
		globs = append(globs, filepath.Join(c.Docker.Root, "*", "*-json.log"))
	}
	if c.Kubernetes.Enabled {
		globs = append(globs, filepath.Join(c.Kubernetes.Root, "*", "*", "*.log"))
	}
	return globs
}

// ReadsJournal: with files to follow, the journal is read only when a journal key says what
// to read there (units, identifiers, containers, a directory); without, it is the source as
// before.
func (c *Config) ReadsJournal() bool {
	if len(c.FileGlobs()) == 0 {
		return true
	}
	j := c.Journal
	return len(j.Units) > 0 || len(j.Identifiers) > 0 || len(j.Containers) > 0 || j.Dir != ""
}

func (c *Config) validateFiles(bad func(key, format string, args ...any)) {
	for i, g := range c.Files {
		if g == "" {
			bad(fmt.Sprintf("files[%d]", i), "must not be empty")
		} else if _, err := filepath.Match(g, ""); err != nil {
			bad(fmt.Sprintf("files[%d]", i), "%q: %v", g, err)
		}
	}
	c.Docker.validate("docker", false, bad)
	c.Kubernetes.validate("kubernetes", true, bad)
	if c.Kubernetes.Refresh < time.Second {
		bad("kubernetes.refresh", "%s: want at least 1s", c.Kubernetes.Refresh)
	}
	if c.FileOptions.MaxOpen < 0 || c.FileOptions.MaxOpen > 65536 {
		bad("file_options.max_open", "%d: want 0 (default 128) to 65536", c.FileOptions.MaxOpen)
	}
	if c.FileOptions.RotateWait < 0 {
		bad("file_options.rotate_wait", "%s: must not be negative", c.FileOptions.RotateWait)
	}
}

func (p *PresetConfig) validate(key string, kube bool, bad func(key, format string, args ...any)) {
	if p.Root == "" {
		bad(key+".root", "must not be empty")
	} else if _, err := filepath.Match(p.Root, ""); err != nil {
		bad(key+".root", "%q: %v", p.Root, err)
	}
	for _, side := range []struct {
		name string
		pat  ContainerPatterns
	}{{"include", p.Include}, {"exclude", p.Exclude}} {
		lists := map[string][]string{"containers": side.pat.Containers, "images": side.pat.Images,
			"namespaces": side.pat.Namespaces, "pods": side.pat.Pods}
		for list, pats := range lists {
			k := key + "." + side.name + "." + list
			switch {
			case kube && list == "images" && len(pats) > 0:
				bad(k, "a pod log's path does not name its image (no API access): filter on containers, namespaces or pods")
			case !kube && (list == "namespaces" || list == "pods") && len(pats) > 0:
				bad(k, "Docker containers have no namespace or pod: filter on containers or images")
			}
			for i, pat := range pats {
				if _, err := filepath.Match(pat, ""); err != nil || pat == "" {
					bad(fmt.Sprintf("%s[%d]", k, i), "%q: not a pattern (%v)", pat, err)
				}
			}
		}
	}
}
