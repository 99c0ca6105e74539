package parse

import "github.com/specwatch/specwatch/parse/internal/stamp"

// Stamp is a timestamp as written, broken down (see parse/internal/stamp, which reads them).
type Stamp = stamp.Stamp

// Precision ranks how much of an absolute instant a Stamp pins down.
type Precision = stamp.Precision

const (
	PrecNone     = stamp.PrecNone
	PrecTime     = stamp.PrecTime
	PrecYearless = stamp.PrecYearless
	PrecLocal    = stamp.PrecLocal
	PrecAbsolute = stamp.PrecAbsolute
)
