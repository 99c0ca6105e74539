package mergeheap

import (
	"math/rand/v2"
	"testing"
)

// Items come out by time, and items of one time in push order, whatever the pushes' order.
func TestOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h Heap
	for i := range 1000 {
		h.Push(Item{At: int64(rng.IntN(50)), Seq: uint64(i)})
	}
	last := Item{At: -1}
	for range 1000 {
		it := h.Pop()
		if it.At < last.At || it.At == last.At && it.Seq < last.Seq {
			t.Fatalf("%+v after %+v", it, last)
		}
		last = it
	}
	if len(h) != 0 {
		t.Errorf("%d left", len(h))
	}
}
