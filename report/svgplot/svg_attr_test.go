package svgplot

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/specwatch/specwatch/model/schema"
)

var barRE = regexp.MustCompile(`<g class="bar (\w+)"><title>[^<]*</title><rect x="[^"]*" y="[^"]*" width="([^"]*)"`)

// barWidths are the attribution's bar widths by class (acc, ctx, res, tot).
func barWidths(t *testing.T, a *schema.AttributionJSON) map[string]float64 {
	t.Helper()
	d := Attribution(a, "x")
	out := map[string]float64{}
	for _, m := range barRE.FindAllStringSubmatch(string(d.SVG), -1) {
		w, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		out[m[1]] = w
	}
	if len(out) != 4 {
		t.Fatalf("bars %v in %s", out, d.SVG)
	}
	return out
}

// TestAttributionTinyFactors: factors of a few thousandths are not stretched over the plot.
// A factor that prints 0.00 is a hairline, however the others are scaled; a 0.03 change on
// the narrowest axis (0.1) is under a third of the plot, where it filled it on an axis fitted
// to it (0-0.04).
func TestAttributionTinyFactors(t *testing.T) {
	w := barWidths(t, &schema.AttributionJSON{Acceptance: 0.004, Context: 0.001, Residual: -0.0005, Total: 0.0045, LogRatio: 0.0045})
	for _, c := range []string{"acc", "ctx", "res", "tot"} {
		if w[c] > 1 {
			t.Errorf("%s prints 0.00 but is drawn %v px wide", c, w[c])
		}
	}
	w = barWidths(t, &schema.AttributionJSON{Acceptance: 0.004, Context: 0.03, Residual: 0, Total: 0.034, LogRatio: 0.034})
	plot := float64(halfW - 96 - 170)
	if w["acc"] > 1 {
		t.Errorf("acceptance prints 0.00 but is drawn %v px wide", w["acc"])
	}
	if w["ctx"] > plot/3 || w["ctx"] < plot/5 {
		t.Errorf("a 0.03 factor is %v px of a %v px plot, want about 0.03/0.1 of it", w["ctx"], plot)
	}
	// a change larger than the minimum span keeps its fitted axis
	w = barWidths(t, &schema.AttributionJSON{Acceptance: -0.5, Context: -0.2, Residual: 0.1, Total: -0.6, LogRatio: -0.6})
	if w["tot"] < plot*0.7 {
		t.Errorf("the total of a large change is %v px of %v", w["tot"], plot)
	}
}
