package parse

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/sample"
	"github.com/specwatch/specwatch/sim"
)

// TestLayoutAgrees checks readLayout's promise: whenever it reads a line, readFields reads the
// same fields with the same values from it. The lines are the decode and prefill lines of both
// benchmark corpora and of every SGLang style, and damaged copies of them (bytes replaced,
// inserted or dropped where separators, blanks and digits are), most of which readLayout must
// leave to readFields.
func TestLayoutAgrees(t *testing.T) {
	var bodies [][]byte
	for _, sc := range []sim.Scenario{sim.Chatty(3, 20000), sim.Mixed(3, 20000)} {
		var buf bytes.Buffer
		if _, err := sim.Generate(sc, &buf, nil); err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(buf.Bytes(), []byte("\n")) {
			for _, lead := range []string{"Decode batch", "Prefill batch"} {
				if k := bytes.Index(l, []byte(lead)); k >= 0 {
					bodies = append(bodies, l[k:])
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	damage := []byte(", :.\t0123456789%-")
	accepted, mutants := 0, 0
	for n, b := range bodies {
		checkLayout(t, b)
		if n%4 != 0 {
			continue
		}
		for range 8 {
			m := append([]byte(nil), b...)
			at := rng.IntN(len(m))
			c := damage[rng.IntN(len(damage))]
			switch rng.IntN(3) {
			case 0:
				m[at] = c
			case 1:
				m = append(m[:at], append([]byte{c}, m[at:]...)...)
			default:
				m = append(m[:at], m[at+1:]...)
			}
			mutants++
			if checkLayout(t, m) {
				accepted++
			}
		}
	}
	t.Logf("%d lines, %d of %d damaged copies read by a layout", len(bodies), accepted, mutants)
	if len(bodies) < 5000 || accepted == 0 || accepted == mutants {
		t.Errorf("%d lines, %d of %d damaged copies read by a layout: the test checks too little", len(bodies), accepted, mutants)
	}
}

// checkLayout compares readLayout with readFields on one decode or prefill body and reports whether
// a layout read it.
func checkLayout(t *testing.T, b []byte) bool {
	t.Helper()
	lead, layouts, rec := len("Decode batch"), decodeLayouts[:], &decodeRecord
	if bytes.HasPrefix(b, []byte("Prefill batch")) {
		lead, layouts, rec = len("Prefill batch"), prefillLayouts[:], &prefillRecord
	}
	i, ok := afterLead(b, lead)
	if !ok {
		return false
	}
	var fast, slow Record
	if !readLayout(b, i, layouts, &fast) {
		if fast.Fields() != 0 || !sameValues(&fast.Sample, &sample.Sample{}) || fast.Why != "" {
			t.Fatalf("%q: a layout that failed left %+v", b, fast)
		}
		return false
	}
	it := lex.Fields{B: b, Pos: i, Sep: ','}
	if r := readFields(&it, &slow, rec); r != sample.Matched || fast.Fields() != slow.Fields() || !sameValues(&fast.Sample, &slow.Sample) || fast.Why != slow.Why {
		t.Fatalf("%q:\n layout     %+v\n readFields %v %+v", b, fast, r, slow)
	}
	return true
}

// sameValues compares every field's stored value, present or not.
func sameValues(a, b *sample.Sample) bool {
	for f := sample.Field(0); f < numFields; f++ {
		if a.Value(f) != b.Value(f) {
			return false
		}
	}
	return true
}
