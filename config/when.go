package config

import (
	"fmt"
	"time"
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
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time (RFC 3339, or 2006-01-02 15:04:05)", s)
}
