package model

import "github.com/specwatch/specwatch/report/words"

// wordedReport is m.Report() as the report's writers print it: report/words writes its sentences.
func (m *Set) wordedReport() Report {
	r := m.Report()
	words.Fill(&r)
	return r
}

// wordedReport is se.report() with its sentences written.
func (se *Series) wordedReport() SeriesReport {
	r := se.report()
	words.FillSeries(&r)
	return r
}
