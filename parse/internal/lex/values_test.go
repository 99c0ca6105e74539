package lex

import "testing"

// NumberAfter takes any number between lead and tail; CountAfter an integer only; both move
// past tail only when they match.
func TestNumberAfter(t *testing.T) {
	b := []byte("x avg 0.312 < threshold 0.5")
	i := 1
	if v, ok := NumberAfter(b, &i, " avg", " < threshold "); !ok || v != 0.312 || string(b[i:]) != "0.5" {
		t.Errorf("NumberAfter: %v %v, rest %q", v, ok, b[i:])
	}
	i = 1
	if _, ok := CountAfter(b, &i, " avg", " < threshold "); ok || i != 1 {
		t.Errorf("CountAfter took a decimal (i %d)", i)
	}
	c := []byte("steps 3 -> 0")
	i = 0
	if v, ok := CountAfter(c, &i, "steps ", " -> "); !ok || v != 3 || string(c[i:]) != "0" {
		t.Errorf("CountAfter: %v %v, rest %q", v, ok, c[i:])
	}
}
