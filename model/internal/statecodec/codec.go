// Package statecodec writes the state of a value, unexported fields included, and reads it
// back into a value of the same type: the model's snapshots. The model's state is spread over
// some thirty value types whose fields are unexported by design; exporting them, or a codec per
// type kept in step with every field added, would cost more code and more mistakes than this
// walker. Pointers, funcs, interfaces and channels are not state here: they are skipped, and
// keep what the value's constructor set (options, references between series).
//
// The encoding is compact and deterministic (map keys sorted): booleans as a byte, integers as
// varints, floats as their 4 or 8 bytes, strings and slices with their length, and arrays,
// slices and structs of plain numbers and booleans as their memory (a day's plot of a series is
// 2,048 such points: copied, not walked, it saves in 1 ms what the walk took 100 ms for). It
// carries no field names: a Fingerprint of the type goes beside it, and data of another type,
// or of a machine of the other byte order, is refused.
package statecodec

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"slices"
	"sync"
	"unsafe"
)

// ErrCorrupt is wrapped by every error of Read: the data ended early or holds an impossible
// length or value.
var ErrCorrupt = errors.New("corrupt state")

// Append appends the state of *ptr to dst.
func Append(dst []byte, ptr any) []byte {
	return appendValue(dst, reflect.ValueOf(ptr).Elem())
}

// Read reads the state Append wrote into *ptr, whose skipped fields it leaves as they are, and
// returns what follows it in src.
func Read(src []byte, ptr any) ([]byte, error) {
	d := decoder{src: src}
	d.value(reflect.ValueOf(ptr).Elem())
	return d.src, d.err
}

// skipped kinds hold no state of their own here.
func skipped(k reflect.Kind) bool {
	switch k {
	case reflect.Pointer, reflect.Func, reflect.Interface, reflect.Chan, reflect.UnsafePointer, reflect.Uintptr:
		return true
	}
	return false
}

// field returns struct field i of v, readable and settable even when unexported: v is
// addressable (it was reached from a pointer), so the field is memory of the caller's value.
func field(v reflect.Value, i int) reflect.Value {
	f := v.Field(i)
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// plain reports whether t is numbers and booleans only (arrays and structs of them), whose
// memory is its state.
func plain(t reflect.Type) bool {
	if p, ok := plainTypes.Load(t); ok {
		return p.(bool)
	}
	p := false
	switch k := t.Kind(); {
	case k == reflect.Bool, k >= reflect.Int && k <= reflect.Uint64, k == reflect.Float32, k == reflect.Float64:
		p = true
	case k == reflect.Array:
		p = plain(t.Elem())
	case k == reflect.Struct:
		p = true
		for i := range t.NumField() {
			p = p && plain(t.Field(i).Type)
		}
	}
	plainTypes.Store(t, p)
	return p
}

var plainTypes sync.Map // reflect.Type → bool

// memory is the bytes of n values of type t at v's address.
func memory(v reflect.Value, n int) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(v.UnsafeAddr())), n*int(v.Type().Size()))
}

func appendValue(b []byte, v reflect.Value) []byte {
	if k := v.Kind(); (k == reflect.Array || k == reflect.Struct) && plain(v.Type()) {
		return append(b, memory(v, 1)...)
	}
	switch k := v.Kind(); {
	case k == reflect.Bool:
		if v.Bool() {
			return append(b, 1)
		}
		return append(b, 0)
	case k >= reflect.Int && k <= reflect.Int64:
		return binary.AppendVarint(b, v.Int())
	case k >= reflect.Uint && k <= reflect.Uint64:
		return binary.AppendUvarint(b, v.Uint())
	case k == reflect.Float32:
		return binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v.Float())))
	case k == reflect.Float64:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float()))
	case k == reflect.String:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		return append(b, v.String()...)
	case k == reflect.Array:
		for i := range v.Len() {
			b = appendValue(b, v.Index(i))
		}
		return b
	case k == reflect.Slice:
		if v.IsNil() {
			return append(b, 0)
		}
		b = binary.AppendUvarint(b, uint64(v.Len())+1)
		if v.Len() > 0 && plain(v.Type().Elem()) {
			return append(b, memory(v.Index(0), v.Len())...)
		}
		for i := range v.Len() {
			b = appendValue(b, v.Index(i))
		}
		return b
	case k == reflect.Struct:
		for i := range v.NumField() {
			if !skipped(v.Type().Field(i).Type.Kind()) {
				b = appendValue(b, field(v, i))
			}
		}
		return b
	case k == reflect.Map:
		if v.IsNil() {
			return append(b, 0)
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, compareKeys)
		b = binary.AppendUvarint(b, uint64(len(keys))+1)
		for _, key := range keys {
			// map entries are not addressable: copy each into addressable values first
			kc, vc := reflect.New(key.Type()).Elem(), reflect.New(v.Type().Elem()).Elem()
			kc.Set(key)
			vc.Set(v.MapIndex(key))
			b = appendValue(appendValue(b, kc), vc)
		}
		return b
	}
	return b // skipped kinds
}

// compareKeys orders map keys of the kinds maps use here: strings and numbers.
func compareKeys(a, b reflect.Value) int {
	switch k := a.Kind(); {
	case k == reflect.String:
		return cmp.Compare(a.String(), b.String())
	case k >= reflect.Int && k <= reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case k >= reflect.Uint && k <= reflect.Uint64:
		return cmp.Compare(a.Uint(), b.Uint())
	}
	return 0
}

type decoder struct {
	src []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s with %d bytes left", ErrCorrupt, what, len(d.src))
	}
}

func (d *decoder) uvarint() uint64 {
	x, n := binary.Uvarint(d.src)
	if n <= 0 {
		d.fail("a bad length or number")
		return 0
	}
	d.src = d.src[n:]
	return x
}

// length reads a slice, string or map length (+1 when nil is told apart), refusing one that
// the data left cannot hold: each element takes at least min bytes.
func (d *decoder) length(v uint64, min int) int {
	if d.err != nil {
		return 0
	}
	if min < 1 {
		min = 1
	}
	if v > uint64(len(d.src)/min) {
		d.fail(fmt.Sprintf("a length of %d", v))
		return 0
	}
	return int(v)
}

func (d *decoder) value(v reflect.Value) {
	if d.err != nil {
		return
	}
	if k := v.Kind(); (k == reflect.Array || k == reflect.Struct) && plain(v.Type()) {
		d.memory(v, 1)
		return
	}
	switch k := v.Kind(); {
	case k == reflect.Bool:
		if len(d.src) == 0 || d.src[0] > 1 {
			d.fail("a bad boolean")
			return
		}
		v.SetBool(d.src[0] == 1)
		d.src = d.src[1:]
	case k >= reflect.Int && k <= reflect.Int64:
		x, n := binary.Varint(d.src)
		if n <= 0 || v.OverflowInt(x) {
			d.fail("a bad integer")
			return
		}
		v.SetInt(x)
		d.src = d.src[n:]
	case k >= reflect.Uint && k <= reflect.Uint64:
		x := d.uvarint()
		if d.err == nil && v.OverflowUint(x) {
			d.fail("an integer out of range")
			return
		}
		v.SetUint(x)
	case k == reflect.Float32:
		if len(d.src) < 4 {
			d.fail("a truncated number")
			return
		}
		v.SetFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(d.src))))
		d.src = d.src[4:]
	case k == reflect.Float64:
		if len(d.src) < 8 {
			d.fail("a truncated number")
			return
		}
		v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(d.src)))
		d.src = d.src[8:]
	case k == reflect.String:
		n := d.length(d.uvarint(), 1)
		if d.err == nil {
			v.SetString(string(d.src[:n]))
			d.src = d.src[n:]
		}
	case k == reflect.Array:
		for i := range v.Len() {
			d.value(v.Index(i))
		}
	case k == reflect.Slice:
		n := d.uvarint()
		if n == 0 || d.err != nil {
			v.SetZero()
			return
		}
		l := d.length(n-1, minSize(v.Type().Elem()))
		s := reflect.MakeSlice(v.Type(), l, l)
		if l > 0 && plain(v.Type().Elem()) {
			d.memory(s.Index(0), l)
		} else {
			for i := range l {
				d.value(s.Index(i))
			}
		}
		v.Set(s)
	case k == reflect.Struct:
		for i := range v.NumField() {
			if !skipped(v.Type().Field(i).Type.Kind()) {
				d.value(field(v, i))
			}
		}
	case k == reflect.Map:
		n := d.uvarint()
		if n == 0 || d.err != nil {
			v.SetZero()
			return
		}
		l := d.length(n-1, minSize(v.Type().Key())+minSize(v.Type().Elem()))
		m := reflect.MakeMapWithSize(v.Type(), l)
		for range l {
			kc, vc := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			d.value(kc)
			d.value(vc)
			m.SetMapIndex(kc, vc)
		}
		v.Set(m)
	}
}

// memory fills n values of v's type at v's address from the data, byte for byte. A boolean
// byte other than 0 or 1 would be read as is: callers check the data's integrity first (the
// model's state carries a checksum).
func (d *decoder) memory(v reflect.Value, n int) {
	m := memory(v, n)
	if len(d.src) < len(m) {
		d.fail("truncated values")
		return
	}
	copy(m, d.src)
	d.src = d.src[len(m):]
}

// minSize is the fewest bytes a value of t takes encoded, to bound lengths before allocating.
func minSize(t reflect.Type) int {
	if k := t.Kind(); (k == reflect.Array || k == reflect.Struct) && plain(t) {
		return int(t.Size())
	}
	switch k := t.Kind(); {
	case k == reflect.Float32:
		return 4
	case k == reflect.Float64:
		return 8
	case k == reflect.Array:
		return t.Len() * minSize(t.Elem())
	case k == reflect.Struct:
		n := 0
		for i := range t.NumField() {
			if !skipped(t.Field(i).Type.Kind()) {
				n += minSize(t.Field(i).Type)
			}
		}
		return n
	case skipped(k):
		return 0
	}
	return 1
}

// Fingerprint identifies t's encoding: its fields' names, kinds and sizes, recursively. Data
// written for a type of another fingerprint (another build's model) is not read.
func Fingerprint(t reflect.Type) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%v:", binary.NativeEndian.Uint16([]byte{1, 0}) == 1) // plain values are memory
	describe(h, t)
	return h.Sum64()
}

func describe(w interface{ Write([]byte) (int, error) }, t reflect.Type) {
	fmt.Fprintf(w, "%s(", t.Kind())
	switch t.Kind() {
	case reflect.Array:
		fmt.Fprintf(w, "%d,", t.Len())
		describe(w, t.Elem())
	case reflect.Slice:
		describe(w, t.Elem())
	case reflect.Map:
		describe(w, t.Key())
		describe(w, t.Elem())
	case reflect.Struct:
		fmt.Fprintf(w, "%d,", t.Size()) // plain structs are their memory, padding included
		for i := range t.NumField() {
			f := t.Field(i)
			fmt.Fprintf(w, "%s:", f.Name)
			if !skipped(f.Type.Kind()) {
				describe(w, f.Type)
			}
		}
	}
	fmt.Fprint(w, ")")
}
