//go:build linux

package native

import (
	"encoding/binary"
	"errors"
)

// libsystemd finds the entry after the current one by bisecting the file's entry arrays for
// the current entry's offset (journal_file_next_entry: generic_array_bisect with
// test_object_offset), and steps one past the index it lands on. When the items are strictly
// increasing and none is zero, that index is the current entry's, which this reader keeps; a
// damaged item breaks the order, and the bisection then lands elsewhere (or nowhere: the end
// of the file). So the items of the file's list are checked once, in order (sortedTo, a
// sequential read of the arrays), and in a file found out of order the next index is found
// the way libsystemd finds it (bisectOffset). Lists of a match's entries are not checked.

// checkSorted checks the list's items up to n_entries that were not checked yet (a match's
// list: its first entry, then its chain).
func (j *jfile) checkSorted() {
	skip := j.skipItems()
	if skip == 1 && j.sortedTo == 0 && j.n > 0 {
		if j.matchHead == 0 {
			j.unsorted = true
			return
		}
		j.sortedTo, j.sortedLast = 1, j.matchHead
	}
	for !j.unsorted && j.sortedTo < j.n {
		a, err := j.arrayFor(j.sortedTo - skip)
		if err != nil {
			j.unsorted = !errors.Is(err, errEnd)
			return
		}
		is := j.itemSize()
		k := min(a.base+a.cap+skip, j.n) - j.sortedTo
		k = min(k, 4096)
		raw := make([]byte, k*is)
		if got, err := j.pread(raw, int64(a.off+24+(j.sortedTo-skip-a.base)*is)); err != nil || got < len(raw) {
			j.unsorted = true
			return
		}
		for i := range k {
			p := j.itemAt(raw, i)
			if p == 0 || p <= j.sortedLast {
				j.unsorted = true
				return
			}
			j.sortedLast = p
		}
		j.sortedTo += k
	}
}

func (j *jfile) itemAt(raw []byte, i uint64) uint64 {
	if j.itemSize() == 4 {
		return uint64(binary.LittleEndian.Uint32(raw[i*4:]))
	}
	return binary.LittleEndian.Uint64(raw[i*8:])
}

// item reads item i of the array a.
func (j *jfile) item(a jarray, i uint64) (uint64, bool) {
	is := j.itemSize()
	var b [8]byte
	if got, err := j.pread(b[:is], int64(a.off+24+i*is)); err != nil || got < int(is) {
		return 0, false
	}
	return j.itemAt(b[:], 0), true
}

// bisectOffset is generic_array_bisect over the chain's first n items for the entry offset p,
// going down: the index of the first item at or past p, as libsystemd's bisection finds it
// (the last item of each array first, then a binary search in the first array whose last
// item is at or past p; a zero item cuts the range there). false: none (the end).
func (j *jfile) bisectOffset(p, n uint64) (uint64, bool) {
	if len(j.chain) == 0 {
		if _, err := j.arrayFor(0); err != nil {
			return 0, false
		}
	}
	for ci := 0; n > 0; {
		for ci >= len(j.chain) {
			if _, err := j.arrayFor(j.chain[len(j.chain)-1].base + j.chain[len(j.chain)-1].cap); err != nil {
				return 0, false
			}
		}
		a := j.chain[ci]
		right := min(a.cap, n)
		last, ok := j.item(a, right-1)
		if !ok {
			return 0, false
		}
		if last == 0 {
			n = right - 1
			continue
		}
		if last >= p {
			left, right := uint64(0), right-1
			for left < right {
				mid := (left + right) / 2
				q, ok := j.item(a, mid)
				switch {
				case !ok:
					return 0, false
				case q == 0:
					right, n = mid, mid
				case q >= p:
					right = mid
				default:
					left = mid + 1
				}
			}
			return a.base + left, true
		}
		if a.cap >= n {
			return 0, false
		}
		n -= a.cap
		ci++
	}
	return 0, false
}

// matchBisect is generic_array_bisect_plus_one over a match's list for the entry offset p:
// its first entry when at or past p, else one past bisectOffset in its chain.
func (j *jfile) matchBisect(p uint64) (uint64, bool) {
	if j.n == 0 {
		return 0, false
	}
	if j.matchHead >= p {
		return 0, true
	}
	i, ok := j.bisectOffset(p, j.n-1)
	return i + 1, ok
}

// reposition, in a list out of order, moves to where libsystemd goes after the entry at
// lastOff: the file's list, one past the index bisectOffset finds; a match's list, the first
// item past lastOff (next_for_match). False when that is the end.
func (j *jfile) reposition() bool {
	var i uint64
	var ok bool
	if j.match != nil {
		i, ok = j.matchBisect(j.lastOff + 1)
	} else {
		i, ok = j.bisectOffset(j.lastOff, j.n)
		i++
	}
	if !ok || i >= j.n {
		return false
	}
	j.next, j.from, j.queue, j.qpos = i, i, j.queue[:0], 0
	j.repositioned = true
	return true
}
