package containerlog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The fixtures are one simulated engine log (raw.log) as the runtimes write it: Docker's
// json-file driver (its escaping of <, >, &, control characters and U+2028; the 40 KB line
// split into 16 KiB records without their newline), containerd's CRI lines (RFC 3339 UTC,
// trailing zeros trimmed) and CRI-O's (nine digits, the node's offset), P records for the
// same split.
func TestDecodeFixtures(t *testing.T) {
	raw := readLines(t, "raw.log")
	for _, tc := range []struct {
		file   string
		format Format
	}{
		{"docker-json.log", DockerJSON},
		{"cri-containerd.log", CRI},
		{"cri-o.log", CRI},
		{"raw.log", Plain},
	} {
		t.Run(tc.file, func(t *testing.T) {
			recs := readLines(t, tc.file)
			if got := Sniff([]byte(recs[0])); got != tc.format {
				t.Fatalf("Sniff = %v, want %v", got, tc.format)
			}
			d := NewDecoder(tc.format, 0)
			var got []string
			var times []int64
			var off int64
			for _, r := range recs {
				if l, ok := d.Decode([]byte(r), off); ok {
					got = append(got, string(l.Msg))
					times = append(times, l.Time)
				}
				off += int64(len(r)) + 1
			}
			if len(got) != len(raw) {
				t.Fatalf("%d lines, want %d (stats %+v)", len(got), len(raw), d.Stats())
			}
			for i := range raw {
				if got[i] != raw[i] {
					t.Fatalf("line %d:\n got %.120q\nwant %.120q", i, got[i], raw[i])
				}
			}
			st := d.Stats()
			if st.Bad != 0 || st.Cut != 0 {
				t.Errorf("stats %+v, want no bad or cut records", st)
			}
			if tc.format == Plain {
				return
			}
			if st.Joined != 1 {
				t.Errorf("joined %d lines, want the one long line", st.Joined)
			}
			// The record's own time: line i was written at 09:00:00 + 7 ms·i + 100 ns·(i%10).
			t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC).UnixMicro()
			for _, i := range []int{0, 1, 13, 151, 301} {
				want := t0 + int64(i)*7000
				if times[i] != want {
					t.Errorf("line %d time %d, want %d", i, times[i], want)
				}
			}
		})
	}
}

func readLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func decodeAll(d *Decoder, recs ...string) (lines []string) {
	for i, r := range recs {
		if l, ok := d.Decode([]byte(r), int64(i)); ok {
			lines = append(lines, string(l.Msg))
		}
	}
	return lines
}

func TestDecodeBadRecords(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format Format
		recs   []string
		want   []string
		bad    int64
	}{
		{"docker not json", DockerJSON, []string{`{"log":"a\n","time":"2026-11-20T09:00:00Z"}`, `not json`, `{"log":"b\n","time":"2026-11-20T09:00:00Z"}`}, []string{"a", "b"}, 1},
		{"docker no time", DockerJSON, []string{`{"log":"a\n","stream":"stderr"}`}, nil, 1},
		{"docker bad time", DockerJSON, []string{`{"log":"a\n","time":"yesterday"}`}, nil, 1},
		{"docker cut object", DockerJSON, []string{`{"log":"a\n","time":"2026-11-20T09:00:00Z"`}, nil, 1},
		{"docker log not a string", DockerJSON, []string{`{"log":12,"time":"2026-11-20T09:00:00Z"}`}, nil, 1},
		{"docker attrs skipped", DockerJSON, []string{`{"log":"a\n","stream":"stdout","attrs":{"tag":"x"},"time":"2026-11-20T09:00:00Z"}`}, []string{"a"}, 0},
		// A bad record between the halves of a line: the front is dropped, not glued to
		// what follows.
		{"docker partial interrupted", DockerJSON, []string{`{"log":"front ","time":"2026-11-20T09:00:00Z"}`, `garbage`, `{"log":"next\n","time":"2026-11-20T09:00:00Z"}`}, []string{"next"}, 2},
		{"cri short", CRI, []string{`2026-11-20T09:00:00Z stdout`}, nil, 1},
		{"cri bad stream", CRI, []string{`2026-11-20T09:00:00Z stdin F x`}, nil, 1},
		{"cri bad tag", CRI, []string{`2026-11-20T09:00:00Z stdout X x`}, nil, 1},
		{"cri bad time", CRI, []string{`2026-13-20T09:00:00Z stdout F x`}, nil, 1},
		{"cri empty message", CRI, []string{`2026-11-20T09:00:00Z stdout F`, `2026-11-20T09:00:00Z stdout F `}, []string{"", ""}, 0},
		{"cri tag flags", CRI, []string{`2026-11-20T09:00:00Z stdout F:x y`}, []string{"y"}, 0},
		{"cri plain line among records", CRI, []string{`2026-11-20T09:00:00Z stdout P fro`, `[2026-11-20 09:00:00 TP0] Decode batch`, `2026-11-20T09:00:00Z stdout F nt`}, []string{"nt"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(tc.format, 0)
			got := decodeAll(d, tc.recs...)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
				t.Errorf("lines %q, want %q", got, tc.want)
			}
			if d.Stats().Bad != tc.bad {
				t.Errorf("bad %d, want %d", d.Stats().Bad, tc.bad)
			}
		})
	}
}

// Partial lines are joined per stream: the runtimes copy stdout and stderr on separate
// goroutines, so one stream's line may land between the halves of the other's.
func TestDecodeInterleavedStreams(t *testing.T) {
	d := NewDecoder(CRI, 0)
	got := decodeAll(d,
		"2026-11-20T09:00:00Z stderr P [TP0] Decode ",
		"2026-11-20T09:00:00Z stdout F other",
		"2026-11-20T09:00:00Z stderr F batch")
	if strings.Join(got, "|") != "other|[TP0] Decode batch" {
		t.Fatalf("lines %q", got)
	}
	d = NewDecoder(CRI, 0)
	d.Decode([]byte("2026-11-20T09:00:00Z stderr P a"), 10)
	d.Decode([]byte("2026-11-20T09:00:00Z stdout F b"), 20)
	if from, stream, ok := d.Pending(); !ok || from != 10 || stream != Stderr {
		t.Fatalf("Pending = %d %d %v, want 10 stderr", from, stream, ok)
	}
}

// A line whose partial records pass the bound is dropped and counted, and its remaining
// records with it; the next line is whole.
func TestDecodeBound(t *testing.T) {
	d := NewDecoder(CRI, 10)
	got := decodeAll(d,
		"2026-11-20T09:00:00Z stderr P 123456",
		"2026-11-20T09:00:00Z stderr P 789012",
		"2026-11-20T09:00:00Z stderr P 345",
		"2026-11-20T09:00:00Z stderr F 678",
		"2026-11-20T09:00:00Z stderr F next")
	if strings.Join(got, "|") != "next" {
		t.Fatalf("lines %q, want only next", got)
	}
	if d.Stats().Cut != 1 {
		t.Fatalf("cut %d, want 1", d.Stats().Cut)
	}
	d = NewDecoder(DockerJSON, 10)
	got = decodeAll(d, `{"log":"12345678901","time":"2026-11-20T09:00:00Z"}`, `{"log":"x\n","time":"2026-11-20T09:00:00Z"}`, `{"log":"y\n","time":"2026-11-20T09:00:00Z"}`)
	if strings.Join(got, "|") != "y" || d.Stats().Cut != 1 {
		t.Fatalf("lines %q stats %+v, want y and one cut", got, d.Stats())
	}
}

func TestFlush(t *testing.T) {
	d := NewDecoder(DockerJSON, 0)
	decodeAll(d, `{"log":"exited mid-line","time":"2026-11-20T09:00:00Z"}`)
	l, ok := d.Flush()
	if !ok || string(l.Msg) != "exited mid-line" {
		t.Fatalf("Flush = %q %v", l.Msg, ok)
	}
	if _, ok := d.Flush(); ok {
		t.Fatal("second Flush returned a line")
	}
}

func TestParseTime(t *testing.T) {
	for _, s := range []string{"2026-11-20T09:00:00Z", "2026-11-20T09:00:00.1Z", "2026-11-20T09:00:00.123456789Z",
		"2026-11-20T11:00:00.000000000+02:00", "2026-11-20T04:30:00.5-04:30", "2024-02-29T23:59:59.999999Z", "1970-01-01T00:00:00Z"} {
		want, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := ParseTime([]byte(s))
		if !ok || got != want.UnixMicro() {
			t.Errorf("ParseTime(%s) = %d %v, want %d", s, got, ok, want.UnixMicro())
		}
	}
	for _, s := range []string{"", "2026-11-20", "2026-11-20T09:00:00", "2026-11-20 09:00:00Z", "2026-02-30T09:00:00Z",
		"2026-11-20T09:00:00.Z", "2026-11-20T09:00:00.1234567890Z", "2026-11-20T09:00:00+0200", "2026-11-20T24:00:00Z", "2026-11-20T09:00:00Zjunk"} {
		if _, ok := ParseTime([]byte(s)); ok {
			t.Errorf("ParseTime(%q) accepted", s)
		}
	}
}

func TestSniffPlain(t *testing.T) {
	for _, l := range []string{"", "[2026-11-20 09:00:00 TP0] Decode batch", `{"MESSAGE":"x"}`, `{"log":"x"}`, "2026-11-20T09:00:00Z starting", "12 stdout F x"} {
		if f := Sniff([]byte(l)); f != Plain {
			t.Errorf("Sniff(%q) = %v, want plain", l, f)
		}
	}
	if !bytes.Equal(trimCR([]byte("a\r")), []byte("a")) {
		t.Error("trimCR")
	}
}

// Resuming at a position saved inside a stderr line, after a stdout line that completed later
// was applied: the stdout records up to there are not applied twice, the stderr line is whole.
func TestDecodeResume(t *testing.T) {
	recs := []string{"2026-11-20T09:00:00Z stderr P front ", "2026-11-20T09:00:00Z stdout F applied", "2026-11-20T09:00:00Z stderr F back", "2026-11-20T09:00:00Z stdout F after"}
	var offs []int64
	var off int64
	for _, r := range recs {
		offs = append(offs, off)
		off += int64(len(r)) + 1
	}
	d := NewDecoder(CRI, 0)
	d.Resume(Stdout, offs[2]) // saved after "applied": resume at the stderr line's front
	var got []string
	for i, r := range recs {
		if l, ok := d.Decode([]byte(r), offs[i]); ok {
			got = append(got, string(l.Msg))
		}
	}
	if strings.Join(got, "|") != "front back|after" {
		t.Fatalf("lines %q, want the stderr line whole and only the later stdout line", got)
	}
}

// Real conmon output: six lines split where its read buffer ended, joined back exactly.
func TestDecodePodman(t *testing.T) {
	raw := readLines(t, "podman-raw.log")
	d := NewDecoder(CRI, 0)
	var got []string
	var off int64
	for _, r := range readLines(t, "cri-podman.log") {
		if l, ok := d.Decode([]byte(r), off); ok {
			got = append(got, string(l.Msg))
		}
		off += int64(len(r)) + 1
	}
	if strings.Join(got, "\n") != strings.Join(raw, "\n") {
		t.Fatalf("%d lines decoded, %d in the raw output, or they differ", len(got), len(raw))
	}
	if st := d.Stats(); st.Joined != 6 || st.Bad != 0 {
		t.Fatalf("stats %+v, want the 6 split lines joined", st)
	}
}

const realDockerID = "e4b75d0f2986c6b6bb38c87e4b1567bdfd13b792076623f29ac4d7af316f1b2d"

// Real dockerd output (Debian's docker.io, json-file): the simulated engine's 302 lines, and
// a container writing a 40,042-byte line (three records of at most 16 KiB of "log"), escapes
// (\u003c, \u0009, \u001b, U+2028 as \u2028) on stderr, and a last line without its newline.
func TestDecodeRealDocker(t *testing.T) {
	decode := func(name string) ([]string, *Decoder) {
		d := NewDecoder(DockerJSON, 0)
		var got []string
		var off int64
		for _, r := range readLines(t, name) {
			if l, ok := d.Decode([]byte(r), off); ok {
				got = append(got, string(l.Msg))
			}
			off += int64(len(r)) + 1
		}
		for l, ok := d.Flush(); ok; l, ok = d.Flush() {
			got = append(got, string(l.Msg))
		}
		return got, d
	}
	got, d := decode(filepath.Join("docker", realDockerID, realDockerID+"-json.log"))
	if want := readLines(t, "docker-sim-stdout.log"); strings.Join(got, "\n") != strings.Join(want, "\n") || d.Stats().Bad != 0 {
		t.Fatalf("%d lines (stats %+v), want the %d lines of the container's stdout", len(got), d.Stats(), len(want))
	}
	got, d = decode("docker-longline.log")
	want := []string{
		"[2026-11-20 09:00:02] <html> & \"quoted\" back\\slash \ttab \u2028 sep é \x1b[32mgreen\x1b[0m",
		"[2026-11-20 09:00:00 TP0] before the long line",
		"[2026-11-20 09:00:01 TP0] long diagnostic " + strings.Repeat("0123456789abcdef", 2500),
		"[2026-11-20 09:00:03 TP0] exits without a newline",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines %.200q", got)
	}
	if st := d.Stats(); st.Joined != 2 || st.Bad != 0 {
		t.Fatalf("stats %+v: the long line and the unfinished last one are joined", st)
	}
	m, ok := FromPath(filepath.Join("testdata", "docker", realDockerID, realDockerID+"-json.log"))
	if !ok {
		t.Fatal("the real container's path is not Docker's layout")
	}
	if err := DockerName(filepath.Join("testdata", "docker", realDockerID, realDockerID+"-json.log"), &m); err != nil || m.Container != "sglang-sim" || m.Image != "specwatch-sim:local" {
		t.Fatalf("meta %+v, %v: want the name and image dockerd wrote", m, err)
	}
}
