package file

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The Source is a prometheus.Collector of the follower's metrics (docs/metrics.md, "File
// source"); the daemon registers it while files are followed. None has a path label: the paths
// of pod logs carry the pod's UID and restart count, so a label per file would grow with every
// pod the node ever ran; what a file's lines became is per series already
// (specwatch_samples_total has the container).
type fileDescs struct {
	watched, open, lag, readBytes            *prometheus.Desc
	rotations, copies, dropped, saveFailures *prometheus.Desc
	damaged, readErrors, lost, nulBytes      *prometheus.Desc
}

// Label values of specwatch_file_rotations_total and specwatch_file_dropped_lines_total.
var (
	rotationKinds = [...]string{"rename", "truncate", "recreate"}
	dropReasons   = [...]string{"format", "cut"}
)

var descs = newFileDescs()

func newFileDescs() *fileDescs {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	return &fileDescs{
		watched: d("specwatch_file_watched_files",
			"Files followed now: matched by the globs and accepted, open or closed under file_options.max_open, rotated ones still being drained included."),
		open: d("specwatch_file_open_files",
			"Descriptors of followed files open now (at most file_options.max_open, plus rotated files being drained)."),
		lag: d("specwatch_file_lag_bytes",
			"Bytes written to the followed files but not read as lines yet, from the files' sizes at the last scan (every second)."),
		readBytes: d("specwatch_file_read_bytes_total",
			"Bytes read from the followed files as lines."),
		rotations: d("specwatch_file_rotations_total",
			"Rotations of followed files by kind: rename (renamed, inside the globs or out), truncate (truncated in place, copytruncate), recreate (deleted, and a new file under its name).",
			"kind"),
		copies: d("specwatch_file_copies_read_total",
			"Truncated files whose copy (copytruncate) was read from where the original was: truncations that lost nothing."),
		dropped: d("specwatch_file_dropped_lines_total",
			"Lines of followed files dropped: format (a record not in the file's format), cut (over the line bound, or unfinished at a rotation).",
			"reason"),
		saveFailures: d("specwatch_file_position_save_failures_total",
			"Failed writes of the file positions to state_dir; until one succeeds, a restart resumes from the positions last written."),
		damaged: d("specwatch_file_positions_damaged_total",
			"Saved file positions that claimed records past their file's end (a damaged positions file): resumed at their line's start instead."),
		readErrors: d("specwatch_file_read_errors_total",
			"Followed files whose reads started failing (EIO), once per episode; each is logged and retried at every scan."),
		lost: d("specwatch_file_lost_total",
			"Followed files gone before their last lines could be read: deleted while closed under file_options.max_open, or gone (deleted, moved out of their directory) while specwatch was down."),
		nulBytes: d("specwatch_file_nul_bytes_skipped_total",
			"NUL bytes skipped where a line would start: the hole a writer without O_APPEND leaves in its log after a copytruncate."),
	}
}

func (d *fileDescs) describe(ch chan<- *prometheus.Desc) {
	for _, x := range []*prometheus.Desc{d.watched, d.open, d.lag, d.readBytes, d.rotations, d.copies, d.dropped, d.saveFailures, d.damaged, d.readErrors, d.lost, d.nulBytes} {
		ch <- x
	}
}

func (d *fileDescs) collect(ch chan<- prometheus.Metric, st *Stats) {
	gauge := func(desc *prometheus.Desc, v int64) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, float64(v))
	}
	counter := func(desc *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(v), labels...)
	}
	gauge(d.watched, int64(st.Files))
	gauge(d.open, int64(st.Open))
	gauge(d.lag, st.Lag)
	counter(d.readBytes, st.ReadBytes)
	for i, n := range [len(rotationKinds)]int64{st.Renamed, st.Truncated, st.Recreated} {
		counter(d.rotations, n, rotationKinds[i])
	}
	counter(d.copies, st.CopiesRead)
	for i, n := range [len(dropReasons)]int64{st.Bad, st.Cut} {
		counter(d.dropped, n, dropReasons[i])
	}
	counter(d.saveFailures, st.SaveFailures)
	counter(d.damaged, st.DamagedPositions)
	counter(d.readErrors, st.ReadErrors)
	counter(d.lost, st.Lost)
	counter(d.nulBytes, st.NULBytes)
}

// published is the counters as the reading goroutine last left them, for a gather on another
// goroutine (Source is not safe for concurrent use).
type published struct {
	mu    sync.Mutex
	st    Stats
	ok    bool      // published at least once: nothing is exported before the first Next
	at    time.Time // on the source's clock
	dirty bool      // Stats has moved since (lines read, a scan), only the reader touches it
}

// publishEvery bounds how often Stats, a walk over every file, is published: 10,000 files cost
// a walk each time, and a scrape reads at most once a second.
const publishEvery = 250 * time.Millisecond

// publish copies Stats for Collect when it has moved and publishEvery has passed (or the clock
// went back), and always when force is set (Close).
func (s *Source) publish(now time.Time, force bool) {
	p := &s.pub
	if !force && (!p.dirty || now.Sub(p.at) < publishEvery && !now.Before(p.at)) {
		return
	}
	st := s.Stats()
	p.mu.Lock()
	p.st, p.ok, p.at = st, true, now
	p.mu.Unlock()
	p.dirty = false
}

// Describe sends the follower's descriptors.
func (s *Source) Describe(ch chan<- *prometheus.Desc) { descs.describe(ch) }

// Collect sends the counters last published (at most publishEvery old while lines flow, and
// current once the reader has found nothing new), and the store's save failures as they are.
// It is safe to call from any goroutine.
func (s *Source) Collect(ch chan<- prometheus.Metric) {
	s.pub.mu.Lock()
	st, ok := s.pub.st, s.pub.ok
	s.pub.mu.Unlock()
	if !ok {
		return
	}
	// The store counts failed saves under its own lock, and they happen after the reads (the
	// pipeline flushes after applying): read them now, not as of the last publish.
	if s.o.Store != nil {
		st.SaveFailures = s.o.Store.Failures()
	}
	descs.collect(ch, &st)
}
