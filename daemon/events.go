package daemon

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/report/words"
)

// eventEvery is how often the model's state changes are looked for: an anomaly's line comes at
// most this late after the model opened or cleared it.
const eventEvery = 2 * time.Second

// modelView is what the events read of the model (pipeline.State): copies, so that the diff
// never holds ingestion up.
type modelView interface {
	Snapshot(dst []model.SeriesSnapshot) []model.SeriesSnapshot
	Report() model.Report
}

// events logs the model's state changes at info level, once each: a series appears, goes
// quiet, expires or resumes; an anomaly opens or clears, with its sentence from report/words.
// They come from diffing the model's snapshots, so the model itself stays free of logging.
type events struct {
	log     zerolog.Logger
	model   modelView
	seen    map[int]seriesState // by series ID
	snaps   []model.SeriesSnapshot
	checked bool // a check ran: what a series closed before the first one is history
}

type seriesState struct {
	quiet, gone bool
	active      [model.NumAnomalyKinds]bool
	raised      [model.NumAnomalyKinds]int64 // episodes opened, by kind
	logged      [model.NumAnomalyKinds]logged
}

// logged is the latest episode of a kind whose opening was logged, and whether its clearing was.
type logged struct {
	start   time.Time
	cleared bool
}

func newEvents(log zerolog.Logger, m modelView) *events {
	return &events{log: log, model: m, seen: map[int]seriesState{}}
}

// run checks every eventEvery until ctx ends, then once more (what the last entries changed).
func (e *events) run(ctx context.Context) {
	t := time.NewTicker(eventEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			e.check()
			return
		case <-t.C:
			e.check()
		}
	}
}

// check logs what changed since the last check.
func (e *events) check() {
	e.snaps = e.model.Snapshot(e.snaps)
	var rep *model.Report // read only when an anomaly changed: its evidence is in the report
	for i := range e.snaps {
		s := &e.snaps[i]
		prev, known := e.seen[s.ID]
		cur := seriesState{quiet: s.Quiet, gone: s.Gone, active: s.Active, raised: s.Raised, logged: prev.logged}
		if !known {
			series(e.log.Info(), s.Labels).Msg("series appeared")
		}
		switch {
		case cur.gone && !prev.gone:
			series(e.log.Info(), s.Labels).Msg("series expired") // no sample, and nothing from its source, for model.expire_after
		case cur.quiet && !prev.quiet:
			series(e.log.Info(), s.Labels).Msg("series quiet") // no sample for model.expire_after: its figures leave /metrics
		case known && prev.quiet && !cur.quiet:
			series(e.log.Info(), s.Labels).Msg("series resumed")
		}
		for k := range model.NumAnomalyKinds {
			if known && cur.raised[k] == prev.raised[k] && cur.active[k] == prev.active[k] {
				continue
			}
			if rep == nil {
				r := e.model.Report()
				rep = &r
			}
			e.anomalies(rep, s, model.AnomalyKind(k), &cur.logged[k], !known && !e.checked)
		}
		e.seen[s.ID] = cur
	}
	e.checked = true
}

// anomalies logs the episodes of kind k that opened or cleared on s since l, the latest one
// logged, with their sentence: a backlog read fast can open and clear several between two
// checks. Episodes are told apart by their start (one of a kind is open at a time). With
// history set (a series the daemon found when it started, restored), the episodes already
// closed are not news.
func (e *events) anomalies(rep *model.Report, s *model.SeriesSnapshot, k model.AnomalyKind, l *logged, history bool) {
	for _, a := range episodes(rep, s.Labels, k) {
		if history && a.End != nil {
			*l = logged{start: a.Start, cleared: true}
			continue
		}
		if a.Start.After(l.start) {
			e.anomaly(s, k, a).Msg("anomaly opened")
			*l = logged{start: a.Start}
		}
		if a.Start.Equal(l.start) && !l.cleared && a.End != nil {
			e.anomaly(s, k, a).Time("end", *a.End).Float64("duration_seconds", a.End.Sub(a.Start).Seconds()).Msg("anomaly cleared")
			l.cleared = true
		}
	}
}

// anomaly is an episode's line: the series, the kind, its start and its sentence.
func (e *events) anomaly(s *model.SeriesSnapshot, k model.AnomalyKind, a *model.AnomalyJSON) *zerolog.Event {
	return series(e.log.Info(), s.Labels).Str("kind", k.String()).Str("severity", k.Severity()).
		Time("start", a.Start).Str("summary", words.Detail(a.Evidence, s.KVContext))
}

// episodes are the series' episodes of kind k in the report, oldest first (the model keeps the
// latest maxAnomalies).
func episodes(rep *model.Report, l model.Labels, k model.AnomalyKind) []*model.AnomalyJSON {
	var out []*model.AnomalyJSON
	for i := range rep.Series {
		sr := &rep.Series[i]
		if sr.Labels != l {
			continue
		}
		for j := range sr.Anomalies {
			if a := &sr.Anomalies[j]; a.Kind == k.String() {
				out = append(out, a)
			}
		}
	}
	return out
}

// series adds a series' labels to ev, the container's only where there is one.
func series(ev *zerolog.Event, l model.Labels) *zerolog.Event {
	ev = ev.Str("host", l.Host).Str("unit", l.Unit).Str("engine", l.Engine).Str("rank", l.Rank)
	if l.Container != "" {
		ev = ev.Str("container", l.Container).Str("namespace", l.Namespace).Str("pod", l.Pod)
	}
	return ev
}
