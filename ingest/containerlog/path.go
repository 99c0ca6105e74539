package containerlog

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/specwatch/specwatch/internal/readfile"
)

// Meta is a container's identity as its log file's place tells it.
type Meta struct {
	// Container is the container's name: Kubernetes' container name, Docker's name from
	// config.v2.json, or the short id when that cannot be read.
	Container string
	// Namespace and Pod are set for Kubernetes pod logs only.
	Namespace, Pod string
	// ID is Docker's container id (64 hex digits); empty on Kubernetes.
	ID string
	// Image is Docker's image reference from config.v2.json, for filtering; empty elsewhere.
	Image string
}

// FromPath reads the identity the path carries: a Kubernetes pod log
// (…/<namespace>_<pod>_<uid>/<container>/<restart>.log, the kubelet's layout under
// /var/log/pods) or a Docker json-file log (…/<id>/<id>-json.log, the daemon's layout under
// /var/lib/docker/containers). Any other path has none (ok false). Neither kind of name may
// contain '_', so the split is unambiguous.
//
// Rotated siblings carry the same identity: Docker's <id>-json.log.1, .2, … and the kubelet's
// <restart>.log.20261120-093000 (a rotation not yet compressed); reading a container's rotated
// file and its current one gave two series, the rotated one without a container.
func FromPath(path string) (Meta, bool) {
	dir, base := filepath.Split(path)
	dir = filepath.Clean(dir)
	if i := strings.LastIndex(base, ".log."); i >= 0 && rotationSuffix(base[i+len(".log."):]) {
		base = base[:i+len(".log")]
	}
	if id, ok := strings.CutSuffix(base, "-json.log"); ok && isDockerID(id) && filepath.Base(dir) == id {
		return Meta{Container: id[:12], ID: id}, true
	}
	if restart, ok := strings.CutSuffix(base, ".log"); ok && allDigits(restart) {
		container := filepath.Base(dir)
		parts := strings.Split(filepath.Base(filepath.Dir(dir)), "_")
		if len(parts) == 3 && parts[0] != "" && parts[1] != "" && parts[2] != "" && container != "." && container != "/" {
			return Meta{Container: container, Namespace: parts[0], Pod: parts[1]}, true
		}
	}
	return Meta{}, false
}

// rotationSuffix reports whether s is what a rotation appends after ".log.": Docker's number
// or the kubelet's timestamp (20261120-093000).
func rotationSuffix(s string) bool {
	if allDigits(s) {
		return true
	}
	d, t, ok := strings.Cut(s, "-")
	return ok && len(d) == 8 && len(t) == 6 && allDigits(d) && allDigits(t)
}

func isDockerID(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// maxConfigBytes bounds config.v2.json; Docker's are a few KiB (large environments reach
// tens).
const maxConfigBytes = 4 << 20

// DockerName reads the name and image of the container whose json-file log is logPath from
// config.v2.json beside it, and fills m. On failure (not readable, not Docker's) m keeps the
// short id and the error names the file.
func DockerName(logPath string, m *Meta) error {
	cfgPath := filepath.Join(filepath.Dir(logPath), "config.v2.json")
	b, err := readfile.Regular(cfgPath, maxConfigBytes)
	if err != nil {
		return fmt.Errorf("container name from %s: %w", cfgPath, err)
	}
	var c struct {
		Name   string
		Config struct{ Image string }
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return fmt.Errorf("container name from %s: %w", cfgPath, err)
	}
	if name := strings.TrimPrefix(c.Name, "/"); name != "" {
		m.Container = name
	}
	m.Image = c.Config.Image
	return nil
}
