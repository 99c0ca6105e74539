package model

import "github.com/specwatch/specwatch/model/schema"

// The report's leaf types are model/schema's (docs/report.md), named here as the model's.
type (
	InputCounts     = schema.InputCounts
	Labels          = schema.Labels
	StepModel       = schema.StepModel
	CommitStats     = schema.CommitStats
	TPSStats        = schema.TPSStats
	Forecast        = schema.Forecast
	WindowJSON      = schema.WindowJSON
	AttributionJSON = schema.AttributionJSON
	AnomalyJSON     = schema.AnomalyJSON
	PerPosition     = schema.PerPosition
	PositionAdvice  = schema.PositionAdvice
	Readiness       = schema.Readiness
	Report          = schema.Report
	SeriesReport    = schema.SeriesReport
	Sources         = schema.Sources
)

// LabelNames are the labels that name a series, engine first, in the order reports show them.
var LabelNames = schema.LabelNames
