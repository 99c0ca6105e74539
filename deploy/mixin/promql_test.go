package main

import (
	"strings"
	"testing"
)

func TestInjectMatchers(t *testing.T) {
	m := []string{`job=~"$job"`, `instance=~"$instance"`}
	for _, tc := range []struct{ in, want string }{
		{`up`, `up{job=~"$job",instance=~"$instance"}`},
		{`sum(up)`, `sum(up{job=~"$job",instance=~"$instance"})`},
		{`foo{a="b"} / bar{}`, `foo{job=~"$job",instance=~"$instance",a="b"} / bar{job=~"$job",instance=~"$instance"}`},
		{`sum by (le) (rate(x_bucket{h=~"$host"}[$__rate_interval]))`, `sum by (le) (rate(x_bucket{job=~"$job",instance=~"$instance",h=~"$host"}[$__rate_interval]))`},
		{`rate(x_total[${__rate_interval}]) and on (job) y`, `rate(x_total{job=~"$job",instance=~"$instance"}[${__rate_interval}]) and on (job) y{job=~"$job",instance=~"$instance"}`},
		{`{__name__="x"} or vector(0)`, `{job=~"$job",instance=~"$instance",__name__="x"} or vector(0)`},
		{`1e6 * a offset 5m`, `1e6 * a{job=~"$job",instance=~"$instance"} offset 5m`},
		{`sum(up{job=~"specwatch.*"})`, `sum(up{job=~"$job",instance=~"$instance",job=~"specwatch.*"})`},
	} {
		got, err := injectMatchers(tc.in, m)
		if err != nil || got != tc.want {
			t.Errorf("injectMatchers(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	// The source must not carry the matchers the mixin owns, nor be broken PromQL.
	for _, bad := range []string{`up{job=~"$job"}`, `sum(rate(x[5m])`} {
		if got, err := injectMatchers(bad, m); err == nil {
			t.Errorf("injectMatchers(%q) = %q, want an error", bad, got)
		}
	}
}

func TestSubstitute(t *testing.T) {
	vals := map[string]string{"a": "x"}
	got, err := substitute("f", []byte("1 %(a)s 2"), vals)
	if err != nil || string(got) != "1 x 2" {
		t.Errorf("substitute = %q, %v", got, err)
	}
	for _, bad := range []string{"line\n%(b)s", "%(a) s"} {
		if _, err := substitute("f", []byte(bad), vals); err == nil || !strings.Contains(err.Error(), "f:") {
			t.Errorf("substitute(%q): error %v, want one naming the file and line", bad, err)
		}
	}
}
