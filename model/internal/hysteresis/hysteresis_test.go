package hysteresis

import "testing"

func TestStreak(t *testing.T) {
	var s Streak
	for _, bad := range []bool{true, true, false, true, true, true} {
		s.Observe(bad)
	}
	if s.Bad != 3 || s.Good != 0 {
		t.Fatalf("%+v, want 3 bad", s)
	}
	s.Observe(false)
	if s.Bad != 0 || s.Good != 1 {
		t.Errorf("%+v, want 1 good", s)
	}
}
