package defaults

import (
	"testing"
	"time"
)

func TestSet(t *testing.T) {
	i, f, d := -1, 0.5, time.Duration(0)
	Set(&i, 3)
	Set(&f, 2)
	Set(&d, time.Minute)
	if i != 3 || f != 0.5 || d != time.Minute {
		t.Errorf("got %v %v %v", i, f, d)
	}
}
