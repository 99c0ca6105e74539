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
	log   zerolog.Logger
	model modelView
	seen  map[int]seriesState // by series ID
	snaps []model.SeriesSnapshot
}

type seriesState struct {
	quiet, gone bool
	active      [model.NumAnomalyKinds]bool
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
		cur := seriesState{quiet: s.Quiet, gone: s.Gone, active: s.Active}
		e.seen[s.ID] = cur
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
			if cur.active[k] == prev.active[k] {
				continue
			}
			if rep == nil {
				r := e.model.Report()
				rep = &r
			}
			e.anomaly(rep, s, model.AnomalyKind(k), cur.active[k])
		}
	}
}

// anomaly logs an episode of kind k that opened or cleared on s, with its sentence.
func (e *events) anomaly(rep *model.Report, s *model.SeriesSnapshot, k model.AnomalyKind, opened bool) {
	ev := series(e.log.Info(), s.Labels).Str("kind", k.String()).Str("severity", k.Severity())
	if a := episode(rep, s.Labels, k, opened); a != nil {
		ev = ev.Time("start", a.Start)
		if a.End != nil {
			ev = ev.Time("end", *a.End).Float64("duration_seconds", a.End.Sub(a.Start).Seconds())
		}
		ev = ev.Str("summary", words.Detail(a.Evidence, s.KVContext))
	}
	if opened {
		ev.Msg("anomaly opened")
		return
	}
	ev.Msg("anomaly cleared")
}

// episode finds the series' latest episode of kind k in the report: the open one, or the last
// closed one.
func episode(rep *model.Report, l model.Labels, k model.AnomalyKind, open bool) *model.AnomalyJSON {
	for i := range rep.Series {
		sr := &rep.Series[i]
		if sr.Labels != l {
			continue
		}
		for j := len(sr.Anomalies) - 1; j >= 0; j-- {
			if a := &sr.Anomalies[j]; a.Kind == k.String() && (a.End == nil) == open {
				return a
			}
		}
	}
	return nil
}

// series adds a series' labels to ev, the container's only where there is one.
func series(ev *zerolog.Event, l model.Labels) *zerolog.Event {
	ev = ev.Str("host", l.Host).Str("unit", l.Unit).Str("engine", l.Engine).Str("rank", l.Rank)
	if l.Container != "" {
		ev = ev.Str("container", l.Container).Str("namespace", l.Namespace).Str("pod", l.Pod)
	}
	return ev
}
