package parse

import (
	"bytes"
	"time"

	"github.com/specwatch/specwatch/parse/internal/stamp"
	"github.com/specwatch/specwatch/sample"
)

// StreamOptions say how to complete what lines leave out.
type StreamOptions struct {
	// Location is the zone of timestamps written without an offset (SGLang's logger, journalctl
	// short, vLLM). Nil means UTC.
	Location *time.Location
	// Year completes year-less timestamps until the input itself shows a year (a journal entry's
	// own time, a dated SGLang prefix). Zero means 1970, which is obviously wrong in a report.
	Year int
	// Latest, when set, is when the input was last written (a file's modification time): a
	// year-less stamp before any dated one that would fall more than a day after it is in the
	// year before (a log begun in December and last written in January).
	Latest time.Time
	// Origin, when set, is when the engine whose since-start stamps the input carries
	// (llama.cpp's "0.05.071.041", --log-jsonl's "time") started: analyze's --start-time, or a
	// file's modification time less the stamps' span. Unset, such a line is placed by its
	// arrival (ResolveArrived); see sincestart.go.
	Origin time.Time
}

// Stream completes samples with what surrounds them in one input: the journal entry's own
// host, unit and time; the year of vLLM's year-less timestamps; the date of old SGLang
// time-only prefixes; and the engine index of the vLLM engine line that a SpecDecoding line
// belongs to. One Stream per input, used from one goroutine.
type Stream struct {
	loc    *time.Location
	year   int   // until the input shows a time
	latest int64 // Unix ns, 0: unknown (StreamOptions.Latest)
	// lastTime is the latest resolved time; its date completes year-less and date-less stamps.
	lastTime   int64
	engines    [maxEngines]engineRank
	nextEngine int
	key        []byte
	utcDay     civilDay // the day of the latest absolute stamp, see absTime
	summary    summaryJoin
	since      stamp.Anchor // llama.cpp's since-start stamps (sincestart.go)
	llama      llamaJoin    // llama.cpp's requests and statistics (llamajoin.go)
}

// maxEngines bounds the memory of which vLLM engine each process logged last.
const maxEngines = 64

type engineRank struct {
	key  []byte // host \x00 unit \x00 process tag
	rank []byte
}

// NewStream returns a Stream.
func NewStream(opts StreamOptions) *Stream {
	loc := opts.Location
	if loc == nil {
		loc = time.UTC
	}
	year := opts.Year
	if year == 0 {
		year = 1970
	}
	st := &Stream{loc: loc, year: year}
	if !opts.Latest.IsZero() {
		st.latest = opts.Latest.UnixNano()
	}
	if !opts.Origin.IsZero() {
		st.since.Origin, st.since.HasOrigin = opts.Origin.UnixMicro(), true
	}
	return st
}

// The times a sample can carry: Unix nanoseconds in an int64 reach from 1677-09-21 to
// 2262-04-11; specwatch takes whole years inside that, [1678, 2262). A time outside is refused,
// never wrapped around (a line dated 9999 made a series start in 1816).
const (
	minYear = 1678
	maxYear = 2261
)

var minMicros, maxMicros = time.Date(minYear, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro(),
	time.Date(maxYear+1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()

// Resolve fills s.Time and the series key from the entry that carried the line. entryTime is
// the entry's own time in Unix microseconds (0 when the source has none); host and unit
// override what the line's prefix said when non-empty. It returns false when the line's time
// cannot be represented (before 1678, from 2262 on: a journal accepts an entry dated 2500);
// s.Time is then the stream's latest time, and the caller counts the line as malformed.
func (st *Stream) Resolve(entryTime int64, host, unit []byte, s *Record) bool {
	if len(host) > 0 {
		s.Host = host
	}
	if len(unit) > 0 {
		s.Unit = unit
	}
	ok := true
	switch {
	case entryTime != 0:
		if ok = entryTime >= minMicros && entryTime < maxMicros; ok {
			s.Time = entryTime * 1000
		}
	case s.Stamp.Prec == PrecAbsolute || s.Stamp.Prec == PrecLocal:
		if ok = s.Stamp.Year >= minYear && s.Stamp.Year <= maxYear; ok {
			s.Time = st.stampTime(&s.Stamp)
		}
	case s.Stamp.Prec == PrecRelative || s.Stamp.Prec == PrecNone && st.lastTime == 0 && st.since.Clock.Lines > 0:
		s.Time, ok = st.sinceStartTime(&s.Stamp)
	default:
		s.Time = st.stampTime(&s.Stamp)
	}
	if !ok {
		s.Time = st.lastTime
		return false
	}
	st.remember(s.Time)
	switch {
	case s.Engine == sample.EngineVLLM:
		st.joinEngine(s)
	case s.Event == sample.EventSummary:
		st.joinSummary(s)
	case s.Engine == sample.EngineLlamaCpp:
		st.joinLlama(s)
	}
	return true
}

func (st *Stream) stampTime(t *Stamp) int64 {
	switch t.Prec {
	case PrecAbsolute:
		return st.absTime(t)
	case PrecLocal:
		return time.Date(t.Year, time.Month(t.Month), t.Day, t.Hour, t.Min, t.Sec, t.Nano, st.loc).UnixNano()
	case PrecYearless:
		y, m, _ := st.lastDate()
		if m == 12 && t.Month == 1 {
			y++ // the log crossed New Year
		}
		ns := time.Date(y, time.Month(t.Month), t.Day, t.Hour, t.Min, t.Sec, t.Nano, st.loc).UnixNano()
		if st.lastTime == 0 && st.latest != 0 && ns > st.latest+int64(24*time.Hour) {
			// The first stamp, after the input was last written: the year before (a log that
			// starts in December, written until January, landed a year late).
			ns = time.Date(y-1, time.Month(t.Month), t.Day, t.Hour, t.Min, t.Sec, t.Nano, st.loc).UnixNano()
		}
		return ns
	case PrecTime:
		if st.lastTime == 0 {
			return 0
		}
		y, m, d := st.lastDate()
		ns := time.Date(y, time.Month(m), d, t.Hour, t.Min, t.Sec, t.Nano, st.loc).UnixNano()
		if ns < st.lastTime-int64(12*time.Hour) {
			ns += int64(24 * time.Hour) // the clock wrapped past midnight
		}
		return ns
	}
	return st.lastTime // no timestamp: the line happened no earlier than the previous one
}

func (st *Stream) remember(ns int64) {
	if ns != 0 {
		st.lastTime = ns
	}
}

// lastDate is the date of the latest resolved time, computed only for the stamps that need it
// (most lines carry a full date, or come with the journal's own time). Before any time, it is
// StreamOptions.Year with no month or day.
func (st *Stream) lastDate() (year, month, day int) {
	if st.lastTime == 0 {
		return st.year, 0, 0
	}
	y, m, d := time.Unix(0, st.lastTime).In(st.loc).Date()
	return y, int(m), d
}

// joinEngine gives a SpecDecoding line, which names no engine, the engine index of the last
// engine line from the same process; an engine line records its index for the next one.
func (st *Stream) joinEngine(s *Record) {
	// The container is part of the process's identity: two containers' vLLM both run as pid 1.
	st.key = append(append(append(append(append(st.key[:0], s.Host...), 0), s.Unit...), 0), s.Container...)
	st.key = append(append(append(append(st.key, 0), s.Pod...), 0), s.Proc...)
	if s.Kind == sample.KindSpec && len(s.Rank) == 0 {
		for i := range st.engines {
			if e := &st.engines[i]; e.key != nil && bytes.Equal(e.key, st.key) {
				s.Rank = e.rank
				return
			}
		}
		return
	}
	if s.Kind != sample.KindDecode || len(s.Rank) == 0 {
		return
	}
	for i := range st.engines {
		if e := &st.engines[i]; e.key != nil && bytes.Equal(e.key, st.key) {
			e.rank = append(e.rank[:0], s.Rank...)
			return
		}
	}
	e := &st.engines[st.nextEngine]
	st.nextEngine = (st.nextEngine + 1) % maxEngines
	e.key = append(e.key[:0], st.key...)
	e.rank = append(e.rank[:0], s.Rank...)
}

// civilDay is a calendar day and the Unix time of its UTC midnight.
type civilDay struct {
	year, month, day int
	midnight         int64 // seconds
}

// absTime is a PrecAbsolute stamp in Unix nanoseconds. Consecutive lines nearly always share
// the day, so the day's midnight is computed once (by time.Date, which also normalises a
// day past the month's end) and the clock added to it: time.Date for every stamp was 3 % of
// analyze's CPU on the chatty corpus, where every line has journalctl's short-iso stamp;
// BenchmarkResolveAbsolute went from 17.6 to 7.3 ns (medians of 3 runs).
func (st *Stream) absTime(t *Stamp) int64 {
	d := &st.utcDay
	if d.year != t.Year || d.month != t.Month || d.day != t.Day || d.midnight == 0 {
		*d = civilDay{t.Year, t.Month, t.Day,
			time.Date(t.Year, time.Month(t.Month), t.Day, 0, 0, 0, 0, time.UTC).Unix()}
	}
	sec := d.midnight + int64(t.Hour)*3600 + int64(t.Min)*60 + int64(t.Sec) - int64(t.Offset)
	return sec*int64(time.Second) + int64(t.Nano)
}
