package config

import (
	"fmt"
	"time"
)

// MinTime and MaxTime bound the times specwatch accepts, [1678, 2262): samples carry Unix
// nanoseconds in an int64, and a time outside wrapped around (--until 2300 kept nothing,
// --since 2300 everything).
var (
	MinTime = time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)
)

// ParseWhen reads a point in time as operators write one on a command line or in the file:
// RFC 3339, or a date and time without a zone, taken in loc. The empty string is the zero time
// (unbounded).
func ParseWhen(s string, loc *time.Location) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			if t.Before(MinTime) || !t.Before(MaxTime) {
				return time.Time{}, fmt.Errorf("%q is outside the times specwatch represents (%d to %d): Unix nanoseconds in 64 bits", s, MinTime.Year(), MaxTime.Year()-1)
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time (RFC 3339, or 2006-01-02 15:04:05)", s)
}
