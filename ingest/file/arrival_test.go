package file

import (
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
)

// Every line carries its arrival on the Source's clock, beside the time its format gives (none
// for a plain file), so that a llama.cpp line stamped only with the time since the engine
// started can be placed.
func TestFollowArrival(t *testing.T) {
	f := followIn(t, Options{}, "*.log")
	f.write("engine.log", 1, 2)
	var e ingest.Entry
	ok, err := f.src.Next(&e, time.Second)
	if err != nil || !ok {
		t.Fatalf("%v %v", ok, err)
	}
	if e.Arrival != f.now.UnixMicro() || e.Time != 0 {
		t.Errorf("arrival %d (clock %d), time %d", e.Arrival, f.now.UnixMicro(), e.Time)
	}
	f.now = f.now.Add(3 * time.Second)
	if ok, _ := f.src.Next(&e, time.Second); !ok || e.Arrival != f.now.UnixMicro() {
		t.Errorf("second line: arrival %d, clock %d", e.Arrival, f.now.UnixMicro())
	}
}
