package daemon

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/ingest/containerlog"
	"github.com/specwatch/specwatch/ingest/file"
)

// openFiles builds the file source of `files`, `docker` and `kubernetes`, resuming from the
// positions saved in the state directory. A damaged positions file is reported and the files
// start as at a first start (their end), as a damaged journal cursor does.
func openFiles(cfg config.Config, log zerolog.Logger, health *sources) (*file.Source, *file.Store) {
	store := file.NewStore(cfg.StateDir)
	positions, existed, err := store.Load()
	if err != nil {
		log.Warn().Err(err).Msg("cannot use the saved file positions; files start at their end")
	}
	presets := presetGlobs(cfg)
	health.configured("files")
	docker := presetFilter(cfg.Docker)
	kube := presetFilter(cfg.Kubernetes.PresetConfig)
	under := func(path, root string) bool {
		return strings.HasPrefix(path, filepath.Clean(root)+string(filepath.Separator))
	}
	src := file.New(file.Options{
		Globs:      cfg.FileGlobs(),
		Positions:  positions,
		StartAtEnd: !existed,
		Store:      store,
		Host:       NodeName(),
		MaxOpen:    cfg.FileOptions.MaxOpen,
		RotateWait: cfg.FileOptions.RotateWait,
		Resolve: func(path string, m *containerlog.Meta) {
			if m.ID != "" {
				if err := containerlog.DockerName(path, m); err != nil {
					log.Debug().Err(err).Str("path", path).Msg("container named by its short id")
				}
			}
		},
		Accept: func(path string, m containerlog.Meta) bool {
			switch {
			case cfg.Docker.Enabled && under(path, cfg.Docker.Root):
				return docker.Accept(m)
			case cfg.Kubernetes.Enabled && under(path, cfg.Kubernetes.Root):
				return kube.Accept(m)
			}
			return true
		},
		Warn:   func(msg, path string, err error) { log.Warn().Err(err).Str("path", path).Msg(msg) },
		Failed: func(reason string) { health.failed("files", reason) },
		Event: func(e file.Event) {
			if e.Kind == file.GlobEmpty && e.Err == nil && presets[e.Glob] {
				log.Info().Str("source", "files").Str("glob", e.Glob).Msg("no container log yet")
				return
			}
			health.fileEvent(e)
		},
		Note: func(msg, path string, offset int64) { log.Debug().Str("path", path).Int64("offset", offset).Msg(msg) },
	})
	log.Info().Str("source", "files").Strs("globs", cfg.FileGlobs()).Int("positions", len(positions)).Bool("first_start", !existed).Msg("following files")
	return src, store
}

// presetGlobs are the discovery presets' globs (docker, kubernetes), which match nothing on a
// node with no container yet: that is no fault.
func presetGlobs(cfg config.Config) map[string]bool {
	m := map[string]bool{}
	for _, g := range cfg.FileGlobs() {
		if !slices.Contains(cfg.Files, g) {
			m[g] = true
		}
	}
	return m
}

func presetFilter(p config.PresetConfig) file.Filter {
	conv := func(c config.ContainerPatterns) file.Patterns {
		return file.Patterns{Containers: c.Containers, Images: c.Images, Namespaces: c.Namespaces, Pods: c.Pods}
	}
	return file.Filter{Include: conv(p.Include), Exclude: conv(p.Exclude)}
}

// NodeName is the host of file entries: NODE_NAME when set (a DaemonSet passes the node's name
// that way; the pod's own hostname is the pod's), else the host name, as journald's _HOSTNAME.
func NodeName() string {
	if n := os.Getenv("NODE_NAME"); n != "" {
		return n
	}
	h, _ := os.Hostname()
	return h
}
