package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/file"
)

const llamaDraft = "I slot print_timing: id  0 | task 0 | draft acceptance = 0.64479 (  167 accepted /   259 generated), mean len =  2.92"

// onlySeries returns the report's one series, failing otherwise.
func onlySeries(t *testing.T, st *State) (first, last time.Time) {
	t.Helper()
	r := st.Report()
	if len(r.Series) != 1 {
		t.Fatalf("%d series, want 1: %+v", len(r.Series), r.Input)
	}
	return r.Series[0].First, r.Series[0].Last
}

// TestFollowFileSinceStart is `run --file` on a raw llama.cpp log: lines stamped only with the
// time since the engine started are placed by their arrival on the file source's clock (a
// backlog read at once: at its arrival), never in 1970.
func TestFollowFileSinceStart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "llama.log")
	log := "0.00.003.521 I srv  llama_server: initializing ...\n" +
		"0.10.128.324 " + llamaDraft + "\n" +
		"0.13.654.191 " + llamaDraft + "\n"
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 5, 7, 51, 0, 0, time.UTC)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	src := file.New(file.Options{Globs: []string{path}, Store: file.NewStore(state), Now: func() time.Time { return now },
		Wait: func(d time.Duration) { now = now.Add(d); cancel() }})
	defer src.Close()
	st := NewState(StateOptions{Live: true})
	p := New(st, Options{Year: 2026, Now: func() time.Time { return now }})
	if err := p.Follow(ctx, Input{Source: ingest.Poll(src, ingest.PollOptions{Now: func() time.Time { return now }}), Cursor: &countingCursor{}}); err != nil {
		t.Fatal(err)
	}
	first, last := onlySeries(t, st)
	want := time.Date(2026, 12, 5, 7, 51, 0, 0, time.UTC)
	if !first.Equal(want) || !last.Equal(want) {
		t.Errorf("samples from %v to %v, want both at their arrival, %v", first, last, want)
	}
}

// TestLlamaJSONLEverywhere: a --log-jsonl record is unwrapped whatever brought it — a journal
// entry with its own time, a raw line without (placed by arrival) — and a damaged one is
// counted as unreadable.
func TestLlamaJSONLEverywhere(t *testing.T) {
	rec := `{"type":"log","time":3750843,"level":"info","msg":"slot print_timing: id  0 | task 0 | draft acceptance = 1.00000 (  157 accepted /   157 generated), mean len = 53.33\n"}`
	entryTime := time.Date(2026, 12, 5, 7, 0, 0, 0, time.UTC)
	arrival := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		e    ingest.Entry
		want time.Time
	}{
		{"journal", ingest.Entry{Time: entryTime.UnixMicro(), Host: []byte("h"), Unit: []byte("llama.service"), Message: []byte(rec)}, entryTime},
		{"raw, by arrival", ingest.Entry{Arrival: arrival.UnixMicro(), Message: []byte(rec)}, arrival},
		{"raw, by the clock", ingest.Entry{Message: []byte(rec)}, arrival.Add(time.Minute)},
	} {
		st := NewState(StateOptions{})
		p := New(st, Options{Year: 2026, Now: func() time.Time { return arrival.Add(time.Minute) }})
		p.Apply(&c.e)
		p.Apply(&ingest.Entry{Time: c.e.Time, Arrival: c.e.Arrival, Message: []byte(`{"type":"log","time":5,"level":"info","msg":"slot print_timing: id  0 | task 1 | draft accept`)})
		in := st.Report().Input
		if in.Lines != 1 || in.Ignored != 0 || in.Malformed != 0 || in.Unreadable != 1 {
			t.Errorf("%s: input %+v, want 1 line parsed and 1 unreadable", c.name, in)
			continue
		}
		if first, _ := onlySeries(t, st); !first.Equal(c.want) {
			t.Errorf("%s: sample at %v, want %v", c.name, first, c.want)
		}
	}
}

// TestSinceStartSpanRestarts: a raw log with two runs of the engine. SinceStartSpan counts
// every line, the ignored ones too, as the main pass does: anchored at origin = end − span,
// the last line is at the end exactly, the second run follows the first's last line, and no
// time goes backwards.
func TestSinceStartSpanRestarts(t *testing.T) {
	run := "0.00.003.521 I srv  llama_server: initializing ...\n" +
		"0.10.000.000 " + llamaDraft + "\n" +
		"0.12.000.000 " + llamaDraft + "\n" +
		"0.30.000.000 I srv    operator(): operator(): cleaning up before exit...\n"
	second := strings.ReplaceAll(run, "0.30.000.000", "0.20.000.000")
	log := []byte(run + second)
	c, err := SinceStartSpan(ingest.NewReader(bytes.NewReader(log), ingest.ReaderOptions{}))
	if err != nil || c.Lines != 8 || c.Restarts != 1 || c.Elapsed() != 50e6 {
		t.Fatalf("span: %+v, elapsed %d, %v", c, c.Elapsed(), err)
	}
	end := time.Date(2026, 12, 5, 7, 51, 0, 0, time.UTC)
	origin := end.Add(-time.Duration(c.Elapsed()) * time.Microsecond)
	st := NewState(StateOptions{})
	p := New(st, Options{Year: 2026})
	p.NewFileInput(end, origin)
	if err := p.ReadAll(ingest.NewReader(bytes.NewReader(log), ingest.ReaderOptions{}), "llama.log"); err != nil {
		t.Fatal(err)
	}
	first, last := onlySeries(t, st)
	if !first.Equal(origin.Add(10*time.Second)) || !last.Equal(end.Add(-8*time.Second)) {
		t.Errorf("samples from %v to %v, want %v to %v", first, last, origin.Add(10*time.Second), end.Add(-8*time.Second))
	}
	if ss := p.SinceStart(); ss.Lines != 8 || ss.Restarts != 1 || ss.ByArrival != 0 {
		t.Errorf("main pass: %+v", ss)
	}
	if !HasSinceStart([]byte("x\n"+second)) || HasSinceStart([]byte("Nov 20 09:00:01 gpu07 x[1]: y\n{\"log\":\"z\"}\n")) {
		t.Error("HasSinceStart")
	}
}

// TestFollowFirstStartSavesPositions: a first start that reads no line (the logs are quiet)
// still saves where it began within a second or two, so that a SIGKILL and a restart resume
// there instead of starting at the end again and skipping what was written in between (issue
// 27, item 6: 20 lines lost). The check runs inside the loop, before Follow's final flush,
// which a SIGKILL never reaches.
func TestFollowFirstStartSavesPositions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "engine.log")
	if err := os.WriteFile(path, []byte("old line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 12, 5, 7, 51, 0, 0, time.UTC)
	now := start
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := file.NewStore(state)
	saved := false
	src := file.New(file.Options{Globs: []string{path}, Store: store, StartAtEnd: true, Now: func() time.Time { return now },
		Wait: func(d time.Duration) {
			now = now.Add(d)
			if now.Sub(start) >= 3*time.Second {
				_, err := os.Stat(store.Path())
				saved = err == nil
				cancel()
			}
		}})
	defer src.Close()
	p := New(NewState(StateOptions{Live: true}), Options{Year: 2026, Now: func() time.Time { return now }})
	if err := p.Follow(ctx, Input{Source: ingest.Poll(src, ingest.PollOptions{Now: func() time.Time { return now }}), Cursor: store}); err != nil {
		t.Fatal(err)
	}
	if !saved {
		t.Fatal("3 s after a quiet first start no position was saved: a SIGKILL now loses what is written next")
	}
	pos, existed, err := store.Load()
	if err != nil || !existed || len(pos) != 1 || pos[0].Offset != int64(len("old line\n")) {
		t.Errorf("positions %+v (existed %v, %v): want the file's end", pos, existed, err)
	}
}
