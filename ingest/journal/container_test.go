package journal

import (
	"fmt"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// containerLine sends entry i as Docker's journald driver would for container i%4: every
// container logs through one unit (docker.service) under one identifier; container 3 has no
// name, only an id; every fifth entry is the daemon's own, without a container.
func containerLine(j *testjournal.Journal, i int) error {
	msg := journaltest.Numbered("line", i)
	if i%5 == 4 {
		return j.Send("docker.service", "dockerd", msg)
	}
	c := i % 4
	fields := []testjournal.Field{{Name: "CONTAINER_ID", Value: fmt.Appendf(nil, "%012x", 0xabc000000000+c)},
		{Name: "CONTAINER_ID_FULL", Value: fmt.Appendf(nil, "%064x", 0xabc000000000+c)}, {Name: "CONTAINER_TAG", Value: []byte("tag")}}
	if c != 3 {
		fields = append(fields, testjournal.Field{Name: "CONTAINER_NAME", Value: fmt.Appendf(nil, "engine-%d", c)})
	}
	return j.Send("docker.service", "tag", msg, fields...)
}

// wantContainer is the container entry i is read with (see containerLine).
func wantContainer(i int) string {
	switch {
	case i%5 == 4:
		return ""
	case i%4 == 3:
		return fmt.Sprintf("%012x", 0xabc000000000+3)
	}
	return fmt.Sprintf("engine-%d", i%4)
}

// TestJournalContainers: each backend names every entry's container (the name, else the short
// id), and Containers globs keep exactly the entries of the matching containers, of those the
// unit match selects — following, and after a restart from the cursor of the last entry read.
func TestJournalContainers(t *testing.T) {
	journalBackends(t, func(t *testing.T, b Backend) {
		j := journaltest.StartJournald(t)
		j.RequireUnits()
		const n = 400
		for i := range n {
			if err := containerLine(j, i); err != nil {
				t.Fatal(err)
			}
		}
		j.Sync()
		all := journaltest.Drain(t, openJ(t, Options{Dir: j.Dir(), Backend: b, Units: []string{"docker.service"}, Start: Head(), NoFollow: true}), time.Second)
		if len(all) != n {
			t.Fatalf("read %d entries, want %d", len(all), n)
		}
		for i, o := range all {
			if journaltest.SeqOf(t, o.Message) != i || o.Container != wantContainer(i) || o.Unit != "docker.service" {
				t.Fatalf("entry %d: %v, want container %q of docker.service", i, o, wantContainer(i))
			}
		}

		globs := []string{"engine-[01]", "abc*"} // engines 0 and 1 by name, container 3 by id
		keep := func(i int) bool { c := wantContainer(i); return c != "" && c != "engine-2" }
		o := Options{Dir: j.Dir(), Backend: b, Units: []string{"docker.service"}, Containers: globs, Start: Head()}
		src := openJ(t, o)
		var want []int
		for i := range n {
			if keep(i) {
				want = append(want, i)
			}
		}
		got := journaltest.ReadN(t, src, len(want), 30*time.Second)
		journaltest.ExpectQuiet(t, src, 300*time.Millisecond)
		for k, g := range got {
			if journaltest.SeqOf(t, g.Message) != want[k] || g.Container != wantContainer(want[k]) {
				t.Fatalf("kept entry %d: %v, want line %d of %q", k, g, want[k], wantContainer(want[k]))
			}
		}
		last := got[len(got)-1].Cursor
		src.Close()

		// Written while stopped, read after a restart from the last cursor: only the kept
		// ones, none twice.
		for i := n; i < 2*n; i++ {
			if err := containerLine(j, i); err != nil {
				t.Fatal(err)
			}
		}
		j.Sync()
		o.Start = AfterCursor(last, Tail())
		src = openJ(t, o)
		want = want[:0]
		for i := n; i < 2*n; i++ {
			if keep(i) {
				want = append(want, i)
			}
		}
		got = journaltest.ReadN(t, src, len(want), 30*time.Second)
		journaltest.ExpectQuiet(t, src, 300*time.Millisecond)
		for k, g := range got {
			if journaltest.SeqOf(t, g.Message) != want[k] {
				t.Fatalf("after the restart, entry %d: %v, want line %d", k, g, want[k])
			}
		}
		if st := src.Stats(); st.CursorMissing != 0 || st.Duplicates != 0 {
			t.Fatalf("stats after the restart %+v", st)
		}
	})
}

func TestContainerGlobValidated(t *testing.T) {
	if _, err := Open(Options{Containers: []string{"engine-["}}); err == nil {
		t.Fatal("a malformed glob was accepted")
	}
}
