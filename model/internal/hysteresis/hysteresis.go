// Package hysteresis counts consecutive bad and good observations, so that a detector raises
// after Bad in a row and clears after Good in a row: one noisy sample neither raises nor clears.
package hysteresis

// Streak is the current run of bad or good observations; the zero value is ready.
type Streak struct{ Bad, Good int }

// Observe extends the run of its kind and ends the other.
func (s *Streak) Observe(bad bool) {
	if bad {
		s.Bad++
		s.Good = 0
	} else {
		s.Good++
		s.Bad = 0
	}
}
