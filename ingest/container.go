package ingest

import (
	"errors"
	"io"
	"path/filepath"

	"github.com/specwatch/specwatch/ingest/containerlog"
)

// nextContainer reads a container runtime's log file (Docker json-file, CRI) through
// containerlog's decoder: partial records are joined into one line, the record's time is the
// entry's, and records that are not of the format are counted bad. A line cut at MaxLineBytes
// is dropped (its last number would read as a smaller one) and counted as truncated; so is a
// joined line past the bound. At the end a line still being joined (a container that exited
// in the middle of one) is returned as it stands.
func (r *Reader) nextContainer(e *Entry) error {
	if r.lines == nil {
		f := containerlog.DockerJSON
		if r.shape == CRI {
			f = containerlog.CRI
		}
		r.lines = containerlog.NewDecoder(f, r.max)
		// The container's identity from where the file is (analyze FILE), as `run` takes it;
		// a relative name ("<id>-json.log", read in its directory) is made absolute first, or
		// its directory, which names the container, would be ".".
		name := r.name
		if abs, err := filepath.Abs(name); err == nil && name != "-" {
			name = abs
		}
		if m, ok := containerlog.FromPath(name); ok {
			if m.ID != "" {
				_ = containerlog.DockerName(name, &m) // else the short id
			}
			r.container, r.namespace, r.pod = []byte(m.Container), []byte(m.Namespace), []byte(m.Pod)
		}
	}
	before := r.lines.Stats()
	defer func() {
		after := r.lines.Stats()
		r.stats.Bad += after.Bad - before.Bad
		r.stats.Truncated += after.Cut - before.Cut
	}()
	for {
		off := r.stats.Bytes - int64(r.w-r.r)
		line, end, err := r.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if l, ok := r.lines.Flush(); ok {
					r.entry(e, l)
					return nil
				}
			}
			return err
		}
		if end == endTruncated {
			continue // counted by readLine
		}
		if l, ok := r.lines.Decode(line, off); ok {
			r.entry(e, l)
			return nil
		}
	}
}

func (r *Reader) entry(e *Entry, l containerlog.Line) {
	*e = Entry{Time: l.Time, Message: l.Msg, Container: r.container, Namespace: r.namespace, Pod: r.pod}
	r.stats.Entries++
}
