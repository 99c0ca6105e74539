package llama

import (
	"math"
	"testing"
)

func read(t *testing.T, line string) (Stats, [MaxPos]float64) {
	t.Helper()
	var pos [MaxPos]float64
	st, why := ReadStats([]byte(line), pos[:])
	if why != "" {
		t.Fatalf("%q: %s", line, why)
	}
	return st, pos
}

// TestDeltas: the real engine's two readings after two requests (draft model, -lv 4). The
// change is the second request's: 67 of 453 tokens accepted in 59 drafts, and its per-position
// rates are the second request's own acc per pos (0.610, 0.254, 0.136, 0.085, 0.051).
func TestDeltas(t *testing.T) {
	var d Deltas
	server := []byte("gpu07\x00llama-server.service")
	st, pos := read(t, "statistics     draft-simple: #calls(b,g,a) =    1     48     48, #gen drafts =     48, #acc drafts =    32, #gen tokens =    373, #acc tokens =    79, #mean acc len = 2.65, #acc rate/pos = (0.667, 0.667, 0.312), dur(b,g,a) = 0.016, 41.300, 0.015 ms")
	if k := d.Apply(server, &st, pos[:]); k != First || st.AccTokens != 79 || st.NPos != 3 {
		t.Fatalf("first: %v %+v", k, st)
	}
	st, pos = read(t, "statistics     draft-simple: #calls(b,g,a) =    2    107    107, #gen drafts =    107, #acc drafts =    68, #gen tokens =    826, #acc tokens =   146, #mean acc len = 2.36, #acc rate/pos = (0.636, 0.439, 0.215, 0.047, 0.028), dur(b,g,a) = 0.031, 92.757, 0.032 ms")
	if k := d.Apply(server, &st, pos[:]); k != Delta || st.AccTokens != 67 || st.GenTokens != 453 || st.GenDrafts != 59 ||
		st.AccDrafts != 36 || st.HasMean || st.NPos != 5 {
		t.Fatalf("second: %v %+v", k, st)
	}
	for i, want := range []float64{0.610, 0.254, 0.136, 0.085, 0.051} {
		if math.Abs(pos[i]-want) > 0.0005 {
			t.Errorf("position %d: %.4f, want %.3f", i, pos[i], want)
		}
	}
	// Another implementation of the same server, and the same one of another server, are apart.
	st, pos = read(t, "statistics        ngram-mod: #calls(b,g,a) =    1      7      0, #gen drafts =      0, #acc drafts =     0, #gen tokens =      0, #acc tokens =     0")
	if k := d.Apply(server, &st, pos[:]); k != First {
		t.Fatalf("another implementation: %v", k)
	}
	st, pos = read(t, "statistics     draft-simple: #calls(b,g,a) =    2    107    107, #gen drafts =    107, #acc drafts =    68, #gen tokens =    826, #acc tokens =   146")
	if k := d.Apply([]byte("gpu08"), &st, pos[:]); k != First {
		t.Fatalf("another server: %v", k)
	}
	// Nothing drafted since: a delta of zero, no list.
	st, pos = read(t, "statistics     draft-simple: #calls(b,g,a) =    3    107    107, #gen drafts =    107, #acc drafts =    68, #gen tokens =    826, #acc tokens =   146, #mean acc len = 2.36, #acc rate/pos = (0.636, 0.439, 0.215, 0.047, 0.028)")
	if k := d.Apply(server, &st, pos[:]); k != Delta || st.AccTokens != 0 || st.GenTokens != 0 || st.NPos != 0 {
		t.Fatalf("idle: %v %+v", k, st)
	}
	// A counter that goes down: the server restarted; the reading counts from the restart.
	st, pos = read(t, "statistics     draft-simple: #calls(b,g,a) =    1     20     20, #gen drafts =     20, #acc drafts =    10, #gen tokens =    160, #acc tokens =    30, #acc rate/pos = (0.5, 0.5, 0.5)")
	if k := d.Apply(server, &st, pos[:]); k != Reset || st.AccTokens != 30 || st.GenTokens != 160 || st.NPos != 3 {
		t.Fatalf("reset: %v %+v", k, st)
	}
	st, pos = read(t, "statistics     draft-simple: #calls(b,g,a) =    2     40     40, #gen drafts =     40, #acc drafts =    20, #gen tokens =    320, #acc tokens =    50, #acc rate/pos = (0.5, 0.5, 0.25)")
	if k := d.Apply(server, &st, pos[:]); k != Delta || st.AccTokens != 20 || st.NPos != 2 || pos[0] != 0.5 || pos[1] != 0.5 {
		t.Fatalf("after the reset: %v %+v %v", k, st, pos[:3])
	}
	// A start-up line: the next readings count from zero, even of an implementation not seen.
	d.Restart(server)
	st, pos = read(t, "statistics     draft-simple: #calls(b,g,a) =    1     40     40, #gen drafts =     40, #acc drafts =    20, #gen tokens =    320, #acc tokens =    50")
	if k := d.Apply(server, &st, pos[:]); k != Delta || st.AccTokens != 50 {
		t.Fatalf("after a restart: %v %+v", k, st)
	}
	st, pos = read(t, "statistics            eagle: #calls(b,g,a) =    1     40     40, #gen drafts =     40, #acc drafts =    20, #gen tokens =    320, #acc tokens =    50")
	if k := d.Apply(server, &st, pos[:]); k != Delta || st.AccTokens != 50 {
		t.Fatalf("a new implementation after a restart: %v %+v", k, st)
	}
}

// TestDeltasLargeCounts: rates printed to 3 decimals of 100,000 drafts are each off by up to 50
// counts: a change over 500 drafts cannot be told, and is left out.
func TestDeltasLargeCounts(t *testing.T) {
	var d Deltas
	st, pos := read(t, "statistics d: #calls(b,g,a) = 1 100000 100000, #gen drafts = 100000, #acc drafts = 60000, #gen tokens = 800000, #acc tokens = 150000, #acc rate/pos = (0.600, 0.500, 0.400)")
	d.Apply(nil, &st, pos[:])
	st, pos = read(t, "statistics d: #calls(b,g,a) = 1 100500 100500, #gen drafts = 100500, #acc drafts = 60300, #gen tokens = 804000, #acc tokens = 150750, #acc rate/pos = (0.600, 0.500, 0.400)")
	if k := d.Apply(nil, &st, pos[:]); k != Delta || st.AccTokens != 750 || st.NPos != 0 {
		t.Fatalf("%v %+v", k, st)
	}
	st, pos = read(t, "statistics d: #calls(b,g,a) = 1 300500 300500, #gen drafts = 300500, #acc drafts = 180300, #gen tokens = 2404000, #acc tokens = 450750, #acc rate/pos = (0.600, 0.500, 0.400)")
	if k := d.Apply(nil, &st, pos[:]); k != Delta || st.NPos != 3 || math.Abs(pos[0]-0.6) > 0.01 {
		t.Fatalf("over 200,000 drafts: %v %+v %v", k, st, pos[:3])
	}
}

// TestDeltasInconsistentPositions: a position whose accepted count grew by more than the drafts
// since (the list grew from 2 to 3 positions with 176 acceptances at the third over 101 new
// drafts) is not one run's counters: the interval's list is left out, never clamped to 1.
func TestDeltasInconsistentPositions(t *testing.T) {
	var d Deltas
	st, pos := read(t, "statistics        draft-mtp: #calls(b,g,a) =    1    203    203, #gen drafts =    203, #acc drafts =   172, #gen tokens =    405, #acc tokens =   308, #mean acc len = 2.52, #acc rate/pos = (0.847, 0.670)")
	d.Apply(nil, &st, pos[:])
	st, pos = read(t, "statistics        draft-mtp: #calls(b,g,a) =    1    304    304, #gen drafts =    304, #acc drafts =   255, #gen tokens =    912, #acc tokens =   641, #mean acc len = 3.11, #acc rate/pos = (0.839, 0.691, 0.579)")
	if k := d.Apply(nil, &st, pos[:]); k != Delta || st.AccTokens != 333 || st.NPos != 0 {
		t.Fatalf("%v %+v %v", k, st, pos[:3])
	}
}
