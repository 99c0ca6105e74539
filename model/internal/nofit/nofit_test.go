package nofit

import "testing"

// Each point counts under its first reason only, and a point that reaches the fit not at all.
func TestCount(t *testing.T) {
	var a Account
	a.Count(true, false, 0, true)    // after idle, whatever else
	a.Count(false, false, 0, true)   // no context
	a.Count(false, true, 0, true)    // no positive step
	a.Count(false, true, 0.05, true) // shared
	a.Count(false, true, 0.05, false)
	if a != (Account{AfterIdle: 1, NoContext: 1, BadStep: 1, Shared: 1}) {
		t.Errorf("%+v", a)
	}
}
