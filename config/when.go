package config

import (
	"fmt"
	"strconv"
	"strings"
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
// RFC 3339, a date and time without a zone (taken in loc), or a time relative to now as
// journalctl takes one ("-2h", "-90m", "-1h30m", "-3d", "now"). The empty string is the zero
// time (unbounded).
func ParseWhen(s string, loc *time.Location) (time.Time, error) {
	return ParseWhenAt(s, loc, time.Now())
}

// ParseWhenAt is ParseWhen with the current time given.
func ParseWhenAt(s string, loc *time.Location, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if s == "now" {
		return now, nil
	}
	if ago, ok := strings.CutPrefix(s, "-"); ok {
		d, err := parseAgo(ago)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q is not a relative time (-2h, -90m, -3d): %w", s, err)
		}
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			if t.Before(MinTime) || !t.Before(MaxTime) {
				return time.Time{}, fmt.Errorf("%q is outside the times specwatch represents (%d to %d): Unix nanoseconds in 64 bits", s, MinTime.Year(), MaxTime.Year()-1)
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time (RFC 3339, 2006-01-02 15:04:05, or relative: -2h)", s)
}

// parseAgo reads a Go duration, or whole days ("3d", which Go's durations lack), bounded so
// that the time stays representable.
func parseAgo(s string) (time.Duration, error) {
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > 100*365 {
			return 0, fmt.Errorf("want whole days up to a century")
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, err
		}
	}
	if d < 0 || d > 100*365*24*time.Hour {
		return 0, fmt.Errorf("want a positive duration up to a century")
	}
	return d, nil
}
