package cmdhelp

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"run", "run", 0}, {"rnu", "run", 1}, {"web.listen-adress", "web.listen-address", 1},
		{"anlyze", "analyze", 1}, {"fromat", "format", 1}, {"yaml", "html", 2}, {"abc", "", 3},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	// Two edits away is a suggestion for a long name, not for a word of four letters.
	if got := Closest("yaml", []string{"text", "json", "html"}); got != nil {
		t.Errorf("Closest(yaml) = %v, want none", got)
	}
	if got := Closest("jsn", []string{"text", "json", "html"}); len(got) != 1 || got[0] != "json" {
		t.Errorf("Closest(jsn) = %v, want json", got)
	}
}
