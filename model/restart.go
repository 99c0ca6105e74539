package model

import (
	"time"

	"github.com/specwatch/specwatch/model/internal/restart"
	"github.com/specwatch/specwatch/model/schema"
)

// restartState is a series' side of restart_regression: the comparison under way, and the
// sentence the explanation carries once a restart has been judged.
type restartState struct {
	cmp restart.Comparison
	// note is a restart judged harmless, which the explanation tells (CodeRestartFine).
	note schema.Evidence
}

// restartQuiet keeps the several start-up lines one restart prints (DFlash's draft runner,
// DDTree's worker) from starting one comparison each.
const restartQuiet = int64(time.Minute)

// restarted records an engine start-up line: if the series already ran, what it looked like
// becomes the reference for what follows.
func (se *Series) restarted(t int64) {
	if c := &se.rs.cmp; c.Pending() && t-c.Before().At < restartQuiet || se.points == 0 && se.commitQ.Count() == 0 {
		return
	}
	b := restart.Before{At: t}
	if se.fit.N() >= se.warmup() {
		b.A, b.B = se.fit.Coef()
		b.Lo, b.Hi, b.HasStep = se.lo, se.hi, true
	}
	if se.long.N() >= se.opts.Window {
		b.Accept, b.HasAccpt = se.long.Mean(), true
	}
	se.rs.cmp = restart.Start(b, restart.Options{})
}

// restartJudge reports the comparison once it has its samples.
func (se *Series) restartJudge(t int64) {
	r, ok := se.rs.cmp.Result()
	if !ok {
		return
	}
	b := se.rs.cmp.Before()
	if r.Regressed {
		se.raise(RestartRegression, t, r.Evidence(schema.CodeRestartRegressed, b))
		se.rs.note = schema.Evidence{}
		return
	}
	se.rs.note = r.Evidence(schema.CodeRestartFine, b)
}
