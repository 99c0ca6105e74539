//lint:file-ignore U1000 the test types' fields are read and written by reflection

package statecodec

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"
)

type inner struct {
	n    int8
	vals [3]float64
	name string
}

type state struct {
	ok      bool
	count   int64
	u       uint16
	f       float64
	nan     float64
	ring    [2]inner
	list    []inner
	nilList []float64
	empty   []float64
	byName  map[string]inner
	byID    map[int32]float64
	opts    *int    // skipped: the constructor's
	fn      func()  // skipped
	any     any     // skipped
	Public  float32 // exported fields too
}

func sample() state {
	return state{ok: true, count: -1 << 40, u: 65535, f: 3.25, nan: math.NaN(),
		ring:   [2]inner{{n: -3, vals: [3]float64{1, 2, 3}, name: "a"}, {name: "ünïcode"}},
		list:   []inner{{n: 1}, {n: 2, name: "b"}},
		empty:  []float64{},
		byName: map[string]inner{"x": {n: 7}, "a": {name: "z"}},
		byID:   map[int32]float64{3: 1.5, -2: math.Inf(-1)},
		Public: 2.5}
}

// A value round-trips field for field, unexported ones included; skipped fields keep what the
// target held; the encoding is deterministic (map keys sorted) and consumes exactly itself.
func TestRoundTrip(t *testing.T) {
	in := sample()
	b := Append(nil, &in)
	if again := Append(nil, &in); !bytes.Equal(b, again) {
		t.Fatal("two encodings of one value differ")
	}
	one := 1
	out := state{opts: &one}
	rest, err := Read(append(b, 0xAB), &out)
	if err != nil || !bytes.Equal(rest, []byte{0xAB}) {
		t.Fatalf("Read: %v, rest %x", err, rest)
	}
	if out.opts != &one {
		t.Error("a skipped pointer field was overwritten")
	}
	if !math.IsNaN(out.nan) {
		t.Errorf("NaN came back as %v", out.nan)
	}
	out.opts, out.nan, in.nan = nil, 0, 0
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip:\n got %+v\nwant %+v", out, in)
	}
	if out.nilList != nil || out.empty == nil {
		t.Errorf("nil and empty slices: %v %v", out.nilList, out.empty)
	}
}

// Every truncation of valid data is an error wrapping ErrCorrupt, never a panic or a silent
// short read.
func TestTruncated(t *testing.T) {
	in := sample()
	b := Append(nil, &in)
	for n := range len(b) {
		var out state
		if _, err := Read(b[:n], &out); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%d of %d bytes: %v", n, len(b), err)
		}
	}
}

// A huge length is refused before anything is allocated for it.
func TestHugeLength(t *testing.T) {
	var out struct{ list []float64 }
	b := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}
	if _, err := Read(b, &out); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v", err)
	}
}

// The fingerprint changes with a field's name, kind or array size, and not with skipped ones'
// types.
func TestFingerprint(t *testing.T) {
	type a struct {
		x int
		r [2]float64
		p *int
	}
	type renamed struct {
		y int
		r [2]float64
		p *int
	}
	type retyped struct {
		x float64
		r [2]float64
		p *int
	}
	type resized struct {
		x int
		r [3]float64
		p *int
	}
	type otherPtr struct {
		x int
		r [2]float64
		p *string
	}
	fa := Fingerprint(reflect.TypeFor[a]())
	for name, f := range map[string]uint64{"renamed": Fingerprint(reflect.TypeFor[renamed]()),
		"retyped": Fingerprint(reflect.TypeFor[retyped]()), "resized": Fingerprint(reflect.TypeFor[resized]())} {
		if f == fa {
			t.Errorf("%s: same fingerprint", name)
		}
	}
	if Fingerprint(reflect.TypeFor[otherPtr]()) != fa {
		t.Error("a skipped field's type changed the fingerprint")
	}
}

func FuzzRead(f *testing.F) {
	in := sample()
	f.Add(Append(nil, &in))
	f.Fuzz(func(t *testing.T, b []byte) {
		var out state
		rest, err := Read(b, &out)
		if err == nil && len(rest) > len(b) {
			t.Fatal("rest longer than the input")
		}
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error %v does not wrap ErrCorrupt", err)
		}
	})
}
