// Package model turns samples into a diagnosis: per series, a rolling fit of step time against
// context, acceptance statistics, attribution of throughput changes and anomaly detectors. It is
// deterministic given its input (time comes from the samples, never from a clock) so the same
// log yields the same report offline and live.
package model

import (
	"github.com/specwatch/specwatch/model/internal/activity"
	"github.com/specwatch/specwatch/sample"
)

// Set holds every series of one specwatch process. It is not safe for concurrent use: one
// goroutine feeds it; readers take Report snapshots from that goroutine.
type Set struct {
	opts     Options
	series   map[string]*Series
	order    []*Series // first-seen order, for stable reports
	key      []byte
	input    InputCounts
	overflow int64
	units    activity.Units        // when each source last logged, for stale and expiry (live)
	fitBuf   []float64             // the series' Theil–Sen scratch, shared: they are fitted one at a time
	recent   [16]recentSeries      // lookup's cache, by the key's last byte and length
	groups   map[string]*peerGroup // the ranks of each engine process, for rank_skew
}

// recentSeries is a slot of lookup's cache: a series and its key.
type recentSeries struct {
	key string
	se  *Series
}

// NewSet returns an empty Set.
func NewSet(opts Options) *Set {
	opts.SetDefaults()
	// A source that logs is remembered up to four per series the cap allows (stale detection).
	return &Set{opts: opts, series: make(map[string]*Series), units: activity.Units{Max: 4 * opts.MaxSeries}}
}

// Count records what one input line was, for the report's input section.
func (m *Set) Count(r sample.Result) {
	m.input.Lines++
	switch r {
	case sample.Matched:
		m.input.Samples++
	case sample.Ignored:
		m.input.Ignored++
	case sample.Malformed:
		m.input.Malformed++
	}
}

// CountOutOfRange records a sample left out by a time range.
func (m *Set) CountOutOfRange() { m.input.OutOfRange++ }

// CountUnreadable records records the reader could not decode.
func (m *Set) CountUnreadable(n int64) { m.input.Unreadable += n }

// CountDamaged counts an input read only as far as it decoded.
func (m *Set) CountDamaged() { m.input.DamagedInputs++ }

// Overflow is the number of samples dropped because the series cap was reached.
func (m *Set) Overflow() int64 { return m.overflow }

// Observe applies a matched, resolved sample to its series and returns the series (nil when
// the series cap dropped it).
func (m *Set) Observe(s *sample.Sample) *Series {
	if s.Kind == sample.KindEvent && s.Event == sample.EventRestart && len(s.Rank) == 0 {
		return m.restartAll(s)
	}
	se := m.lookup(s)
	if se == nil {
		m.overflow++
		return nil
	}
	se.observe(s)
	return se
}

// restartAll applies an engine's start-up line, which names no rank, to every series of that
// engine on its host, unit and container (each rank restarted with the process), and makes no
// series of its own: a rank-less series holding only start-up lines would be a phantom. On a
// first start there is no series yet, and nothing to compare with. It returns the last series
// it applied the line to.
func (m *Set) restartAll(s *sample.Sample) *Series {
	var last *Series
	for _, se := range m.order {
		if l := se.labels; l.Host == string(s.Host) && l.Unit == string(s.Unit) && l.Container == string(s.Container) &&
			l.Pod == string(s.Pod) && l.Engine == s.Engine.String() {
			se.observe(s)
			last = se
		}
	}
	return last
}

// Input returns the input accounting so far.
func (m *Set) Input() InputCounts { return m.input }

// Len is the number of series.
func (m *Set) Len() int { return len(m.order) }

// Apply records one parsed and resolved line: it is counted in the input, then applied to its
// series (Matched) or to that series' format-drift accounting (Malformed). Every reader of logs
// (analyze, the daemon, tests) ends with this. It returns the sample's series, if any.
func (m *Set) Apply(r sample.Result, s *sample.Sample) *Series {
	m.Count(r)
	switch r {
	case sample.Matched:
		return m.Observe(s)
	case sample.Malformed:
		m.ObserveMalformed(s)
	}
	return nil
}

// ObserveMalformed counts a line that carried an engine marker but did not parse, against the
// series its prefix names (format_drift).
func (m *Set) ObserveMalformed(s *sample.Sample) {
	var se *Series
	if s.Engine == sample.EngineUnknown {
		// No prefix named the engine (a key=value statistics line that broke): the line is the
		// engine's on this host and unit, and never starts a series of its own — that made a
		// phantom series with empty labels, dated 1970, which format_drift then landed on
		// instead of the rank whose lines broke.
		se = m.latestOn(s.Host, s.Unit, s.Container)
	} else {
		se = m.lookup(s)
	}
	if se != nil {
		se.observeMalformed(s.Time)
	}
}

// latestOn is the series of host and unit that had the latest sample, or nil. It walks the
// series: malformed lines are rare, and the cap bounds the walk.
func (m *Set) latestOn(host, unit, container []byte) *Series {
	var best *Series
	for _, se := range m.order {
		if se.labels.Host == string(host) && se.labels.Unit == string(unit) && se.labels.Container == string(container) &&
			se.samples > 0 && (best == nil || se.last > best.last) {
			best = se
		}
	}
	return best
}

// lookup finds or creates the sample's series without allocating for an existing one.
//
// A series found is remembered in a slot chosen by its key's last byte and length, which tell
// ranks apart ("DP0 TP0" … "DP3 TP3"), and the next sample with that key is answered by one
// comparison instead of hashing it for the map: the map's lookup was 90 M of analyze's 3,598 M
// instructions on the chatty corpus (400,000 samples, 4 series), with the cache 52 M (analyze
// 3,557 M; cachegrind); BenchmarkSetLookup 316 → 212 instructions per op, 0.62× CPU time
// (median of 7 alternated runs). Other keys in the slot fall back to the map.
func (m *Set) lookup(s *sample.Sample) *Series {
	k := append(m.key[:0], s.Host...)
	k = append(k, 0)
	k = append(k, s.Unit...)
	k = append(k, 0, byte(s.Engine), 0)
	k = append(k, s.Rank...)
	// The container triple last: the recent-slot hash reads the key's last byte, and for
	// sources without containers (most) it must still be the rank's.
	if len(s.Container)+len(s.Namespace)+len(s.Pod) > 0 {
		k = append(k, 0)
		k = append(k, s.Container...)
		k = append(k, 0)
		k = append(k, s.Namespace...)
		k = append(k, 0)
		k = append(k, s.Pod...)
	}
	m.key = k
	slot := &m.recent[(uint(k[len(k)-1])^uint(len(k))*5)%uint(len(m.recent))]
	if slot.se != nil && slot.key == string(k) {
		return slot.se
	}
	if se, ok := m.series[string(k)]; ok {
		*slot = recentSeries{key: se.key, se: se}
		return se
	}
	if len(m.series) >= m.opts.MaxSeries {
		return nil
	}
	se := newSeries(Labels{Host: string(s.Host), Unit: string(s.Unit), Engine: s.Engine.String(), Rank: string(s.Rank),
		Container: string(s.Container), Namespace: string(s.Namespace), Pod: string(s.Pod)}, &m.opts, &m.fitBuf)
	se.id = len(m.order)
	se.key = string(k)
	m.series[se.key] = se
	m.order = append(m.order, se)
	m.joinGroup(se)
	return se
}

// Report returns the diagnosis of every series.
func (m *Set) Report() Report {
	r := Report{Input: m.input, Series: make([]SeriesReport, 0, len(m.order))}
	r.Input.Dropped = m.overflow
	for _, se := range m.order {
		r.Series = append(r.Series, se.report())
	}
	return r
}

// Reconfigure applies new thresholds to every series: the detectors read them at each
// evaluation or retune to them (their reconfigure), so a SIGHUP takes effect at once. Window
// sizes, half-lives and the series cap shape what was learned: they apply to series created
// afterwards.
func (m *Set) Reconfigure(opts Options) {
	opts.SetDefaults()
	m.opts = opts
	m.units.Max = 4 * opts.MaxSeries
	for _, se := range m.order {
		for _, d := range se.dets {
			d.reconfigure(&m.opts)
		}
	}
}
