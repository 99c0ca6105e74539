package model

import (
	"github.com/specwatch/specwatch/model/schema"
)

// NumReadiness is the number of detectors whose readiness reports list (schema.ReadinessDetectors).
const NumReadiness = schema.NumReadiness

// readiness fills r with the series' warm-up detectors' readiness.
func (se *Series) readiness(r *[NumReadiness]Ready) {
	fit := max(0, se.warmup()-int(se.fit.N()))
	for i, k := range schema.ReadinessDetectors {
		x := Ready{Detector: k}
		switch k {
		case AcceptanceDrop:
			x.Armed, x.At, x.Need = se.det.drop.drop.Readiness()
		case StepTimeRegression:
			x.Armed, x.At, x.Need = se.det.regress.test.Readiness()
			x.Need += max(0, se.warmup()-int(se.det.regress.snap.N())) // it compares with a reference fit
			x.Armed = x.Armed && x.Need == 0
		case ThroughputCollapse:
			x.Armed, x.Need = fit == 0, fit
		}
		r[i] = x
	}
}

func (se *Series) readinessReport() []Readiness {
	var rs [NumReadiness]Ready
	se.readiness(&rs)
	out := make([]Readiness, len(rs))
	for i, x := range rs {
		out[i] = x.JSON()
	}
	return out
}

// unarmed says why acceptance_drop could not judge a fall from the attribution's baseline
// window to now, or "" if it could: it is warming up, or armed after that window.
func (se *Series) unarmed() schema.Evidence {
	armed, at, need := se.det.drop.drop.Readiness()
	switch {
	case !armed:
		return schema.Ev(schema.CodeDropWarming, float64(need))
	case se.win.Best.End < at:
		e := schema.Ev(schema.CodeDropArmedLate)
		e.T = [2]int64{at, se.win.Best.End}
		return e
	}
	return schema.Evidence{}
}
