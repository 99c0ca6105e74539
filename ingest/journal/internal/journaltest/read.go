package journaltest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// ReadN reads exactly n entries, failing if they do not arrive before timeout (a deadline on
// an external process, journald, never a fixed sleep).
func ReadN(t *testing.T, src Source, n int, timeout time.Duration) []Owned {
	t.Helper()
	out := make([]Owned, 0, n)
	deadline := time.Now().Add(timeout)
	var e ingest.Entry
	for len(out) < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d entries within %v; stats %+v", len(out), n, timeout, src.Stats())
		}
		ok, err := src.Next(&e, 200*time.Millisecond)
		if err != nil {
			t.Fatalf("Next after %d entries: %v", len(out), err)
		}
		if ok {
			out = append(out, Own(&e))
		}
	}
	return out
}

// ExpectQuiet checks that no further entry arrives within d.
func ExpectQuiet(t *testing.T, src Source, d time.Duration) {
	t.Helper()
	var e ingest.Entry
	ok, err := src.Next(&e, d)
	if err != nil || ok {
		t.Fatalf("expected no more entries, got ok=%v err=%v entry %v", ok, err, Own(&e))
	}
}

// Numbered is the message of line i of a test stream; SeqOf reads i back.
func Numbered(prefix string, i int) []byte { return fmt.Appendf(nil, "%s %08d", prefix, i) }

func SeqOf(t *testing.T, msg string) int {
	t.Helper()
	i := strings.LastIndexByte(msg, ' ')
	n, err := strconv.Atoi(msg[i+1:])
	if err != nil {
		t.Fatalf("not a Numbered message: %q", msg)
	}
	return n
}

// CheckSequence fails unless msgs are exactly prefix 0 … n-1, in order.
func CheckSequence(t *testing.T, got []Owned, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("got %d entries, want %d", len(got), n)
	}
	for i, o := range got {
		if s := SeqOf(t, o.Message); s != i {
			t.Fatalf("entry %d is line %d (previous %v): lost or duplicated Lines", i, s, got[max(i-1, 0)])
		}
	}
}

func Hostname(t *testing.T) string {
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// StartJournald starts a private journald whose entries can carry units, or skips saying
// why (testjournal does).
func StartJournald(t *testing.T, conf ...string) *testjournal.Journal {
	t.Helper()
	j := testjournal.StartWith(t, testjournal.Options{Conf: conf})
	j.RequireUnits()
	return j
}

// Drain reads src until it stays quiet for quiet (following) or ends (NoFollow).
func Drain(t *testing.T, src Source, quiet time.Duration) []Owned {
	t.Helper()
	var got []Owned
	var e ingest.Entry
	for {
		ok, err := src.Next(&e, quiet)
		if err != nil && !(err.Error() == "EOF") {
			t.Fatalf("Next after %d entries: %v", len(got), err)
		}
		if !ok {
			return got
		}
		got = append(got, Own(&e))
	}
}

// SameEntries fails unless both backends returned exactly the same entries, cursors included.
func SameEntries(t *testing.T, native, sd []Owned) {
	t.Helper()
	if len(native) != len(sd) {
		t.Fatalf("native read %d entries, sdjournal %d", len(native), len(sd))
	}
	for i := range sd {
		if native[i] != sd[i] {
			t.Fatalf("entry %d differs:\nnative   %+v\nsdjournal %+v", i, native[i], sd[i])
		}
	}
}

func Patch(t *testing.T, path string, at int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, at); err != nil {
		t.Fatal(err)
	}
}

func Lines(from, to int, unit string) func(i int, e *testjournal.Entry) {
	return func(i int, e *testjournal.Entry) {
		*e = testjournal.Entry{Host: "gpu07", Unit: unit, Identifier: "python3", Message: Numbered("line", from+i),
			Time: testjournal.FixtureEpoch.Add(time.Duration(from+i) * time.Millisecond)}
	}
}

// Aged sets a file's times an hour back: the checker leaves files younger than a few
// seconds for later, as they may be in the middle of being created.
func Aged(t *testing.T, path string) {
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

// StreamLines writes n Numbered Lines from a goroutine and returns a channel with the
// result. When retryDown is set, a line journald refuses (it is being killed and
// restarted) is sent again until it is taken, polling journald with a deadline.
func StreamLines(j *testjournal.Journal, n int, pace time.Duration, retryDown bool) <-chan error {
	errc := make(chan error, 1)
	go func() {
		for i := range n {
			deadline := time.Now().Add(20 * time.Second)
			for {
				err := j.Send("sglang.service", "python3", Numbered("line", i))
				if err == nil {
					break
				}
				if !retryDown || time.Now().After(deadline) || !(errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)) {
					errc <- err
					return
				}
				time.Sleep(5 * time.Millisecond) // journald is restarting: an external process
			}
			if pace > 0 && i%100 == 99 {
				time.Sleep(pace) // spread the stream over several rotations
			}
		}
		errc <- nil
	}()
	return errc
}

// LastLineIn returns the number of the last line in one journal file (-1 if none).
func LastLineIn(t *testing.T, file string) int {
	out, err := exec.Command("journalctl", "--file="+file, "-o", "cat", "-n", "1", "--no-pager", "SYSLOG_IDENTIFIER=python3").Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		return -1
	}
	return SeqOf(t, string(bytes.TrimSpace(out)))
}

// ReadAll decodes data (journalctl output in any mode) with ingest's Reader, checking that it
// reads every byte and returns every entry it counts.
func ReadAll(tb testing.TB, data []byte) []Owned {
	tb.Helper()
	rd := ingest.NewReader(bytes.NewReader(data), ingest.ReaderOptions{})
	var out []Owned
	var e ingest.Entry
	for {
		err := rd.Next(&e)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			tb.Fatalf("Next: %v", err)
		}
		out = append(out, Own(&e))
	}
	if st := rd.Stats(); st.Entries != int64(len(out)) || st.Bytes != int64(len(data)) {
		tb.Fatalf("Stats %+v after %d entries of %d bytes", st, len(out), len(data))
	}
	return out
}
