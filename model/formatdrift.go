package model

import (
	"github.com/specwatch/specwatch/model/internal/drift"
	"github.com/specwatch/specwatch/model/schema"
)

// formatDetector is format_drift: many of the latest lines with the series' engine marker no
// longer parse (model/internal/drift's Format).
type formatDetector struct{ ring drift.Format }

func newFormatDetector(o *Options) formatDetector {
	return formatDetector{ring: drift.NewFormat(o.DriftLines, o.DriftFraction)}
}

// observeFormat feeds format_drift one line with an engine marker.
func (se *Series) observeFormat(malformed bool, t int64) {
	o := se.at(obsLine, t)
	o.malformed = malformed
	se.feed(FormatDrift, o)
}

func (d *formatDetector) observe(se *Series, o *obs) {
	switch d.ring.Add(o.malformed) {
	case drift.Raise:
		bad, n := d.ring.Counts()
		se.raise(FormatDrift, o.t, schema.Ev(schema.CodeFormatDrift, float64(bad), float64(n)))
	case drift.Clear:
		se.clear(FormatDrift, o.t)
	}
}

// clear keeps the ring: lines that did not parse say the same of the format after a pause.
func (d *formatDetector) clear()                 {}
func (d *formatDetector) reconfigure(o *Options) { d.ring.Retune(o.DriftFraction) }
