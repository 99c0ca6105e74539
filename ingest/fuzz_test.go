package ingest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/specwatch/specwatch/ingest/record"
)

// seed adds the fixtures, whole and cut, to a fuzz corpus.
func seed(f *testing.F, add func([]byte)) {
	names, _ := filepath.Glob("testdata/journal*")
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		add(b)
		add(b[:len(b)/3])
	}
}

func FuzzDetect(f *testing.F) {
	seed(f, func(b []byte) { f.Add(b) })
	f.Add([]byte(bin("MESSAGE", "a\nb") + "\n"))
	f.Add([]byte("FOO\n\x02\x00\x00\x00\x00\x00\x00\x00xy\nMESSAGE=x\n\n"))
	f.Add([]byte("\x1e{\"MESSAGE\":\"x\"}\n"))
	f.Add([]byte("2026-11-20T09:00:00.5Z stderr P a\n2026-11-20T09:00:00Z stderr F b\n"))
	f.Add([]byte(`{"log":"a\n","stream":"stderr","time":"2026-11-20T09:00:00Z"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := Detect(data)
		if s != Raw && s != JSON && s != Export && s != DockerJSON && s != CRI {
			t.Fatalf("Detect = %v", s)
		}
		if again := Detect(bytes.Clone(data)); again != s {
			t.Fatalf("Detect not deterministic: %v then %v", s, again)
		}
		// However the stream arrives, the reader settles on what the whole peek says.
		want := Detect(data[:min(len(data), PeekSize)])
		for _, src := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data))} {
			if got := NewReader(src, ReaderOptions{}).Shape(); got != want {
				t.Fatalf("reader detected %v, Detect says %v", got, want)
			}
		}
	})
}

// fuzzReader runs a shape over data with the default limit and with a small one, checks the
// invariants, and checks that chunked delivery changes nothing.
func fuzzReader(t *testing.T, shape Shape, data []byte, limit uint16) []owned {
	small := int(limit)%512 + 1
	var whole []owned
	for _, max := range []int{0, small} {
		opts := ReaderOptions{Shape: shape, MaxLineBytes: max}
		got, st, _ := readAll(t, data, opts)
		if st.Entries+st.Bad > int64(bytes.Count(data, []byte("\n")))+1 {
			t.Fatalf("%d entries and %d bad records from %d lines", st.Entries, st.Bad, bytes.Count(data, []byte("\n"))+1)
		}
		again := drain(t, NewReader(iotest.OneByteReader(bytes.NewReader(data)), opts))
		if len(again) != len(got) {
			t.Fatalf("one byte at a time: %d entries, whole: %d", len(again), len(got))
		}
		for i := range got {
			if again[i] != got[i] {
				t.Fatalf("one byte at a time, entry %d: %v, whole: %v", i, again[i], got[i])
			}
		}
		if max == 0 {
			whole = got
		}
	}
	return whole
}

func FuzzReaderRaw(f *testing.F) {
	seed(f, func(b []byte) { f.Add(b, uint16(16)) })
	f.Add([]byte("a\r\n\r\nb\x00\xff"), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		got := fuzzReader(t, Raw, data, limit)
		// Raw loses nothing: the lines come back as they were, less their line ends.
		want := strings.Split(string(data), "\n")
		if len(want) > 0 && want[len(want)-1] == "" {
			want = want[:len(want)-1]
		}
		if len(got) != len(want) {
			t.Fatalf("%d entries from %d lines", len(got), len(want))
		}
		for i, w := range want {
			if got[i].Message != strings.TrimSuffix(w, "\r") {
				t.Fatalf("line %d: %q, want %q", i, got[i].Message, w)
			}
		}
	})
}

func FuzzReaderExport(f *testing.F) {
	seed(f, func(b []byte) { f.Add(b, uint16(64)) })
	f.Add([]byte("MESSAGE\n\x40\x00\x00\x00\x00\x00\x00\x00\n\n__CURSOR=c\nMESSAGE=x\n\n"), uint16(100))
	f.Add([]byte(bin("MESSAGE", "a\nb")+"\n"+bin("MESSAGE", "")), uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		fuzzReader(t, Export, data, limit)
	})
}

// FuzzReaderContainer reads container runtime logs: chunked delivery changes nothing, and
// nothing panics on damage.
func FuzzReaderContainer(f *testing.F) {
	f.Add([]byte("2026-11-20T09:00:00.5Z stderr P a\n2026-11-20T09:00:00Z stdout F x\n2026-11-20T09:00:00Z stderr F b\n"), uint16(4), false)
	f.Add([]byte(`{"log":"a","stream":"stderr","time":"2026-11-20T09:00:00Z"}`+"\n"+`{"log":"b\n","stream":"stderr","time":"2026-11-20T09:00:01Z"}`+"\n"), uint16(3), true)
	f.Fuzz(func(t *testing.T, data []byte, limit uint16, docker bool) {
		shape := CRI
		if docker {
			shape = DockerJSON
		}
		fuzzReader(t, shape, data, limit)
	})
}

func FuzzReaderJSON(f *testing.F) {
	seed(f, func(b []byte) { f.Add(b, uint16(64)) })
	f.Add([]byte(`{"MESSAGE":"\ud83d\ude00\ud800","X":[[1,{"a":null}]],"_HOSTNAME":["a","b"]}`+"\n"), uint16(10))
	f.Add([]byte(`{"MESSAGE":[[104,105],[1]],"__REALTIME_TIMESTAMP":"12"}`), uint16(30))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		fuzzReader(t, JSON, data, limit)
		// Each line on its own must agree with encoding/json.
		for _, line := range bytes.Split(data, []byte("\n")) {
			checkJSONLine(t, line)
		}
	})
}

// checkJSONLine compares the reader with a reference built on encoding/json for one complete
// line: the reader accepts only valid JSON, and decodes it as encoding/json does.
func checkJSONLine(t *testing.T, line []byte) {
	got, st, _ := readAll(t, append(bytes.Clone(line), '\n'), ReaderOptions{Shape: JSON})
	body := bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	body = bytes.TrimLeft(body, "\x1e")
	// Blank means JSON whitespace only (RFC 8259: space, tab, CR, LF). bytes.TrimSpace would also
	// drop \v, \f and Unicode spaces, which make a line damaged, not blank (found by this fuzzer).
	if len(bytes.Trim(body, " \t\r\n")) == 0 {
		if len(got) != 0 || st.Bad != 0 {
			t.Fatalf("blank line gave %v, bad %d", got, st.Bad)
		}
		return
	}
	if len(got) == 1 && !json.Valid(body) {
		t.Fatalf("accepted invalid JSON %q as %v", body, got[0])
	}
	if !utf8.Valid(body) || bytes.Count(body, []byte("["))+bytes.Count(body, []byte("{")) > record.MaxDepth {
		return // encoding/json replaces invalid UTF-8; deep nesting is refused by design
	}
	want, ok, valid := refJSON(body)
	if !valid {
		return
	}
	switch {
	case !ok && (len(got) != 0 || st.Bad != 1):
		t.Fatalf("%q: got %v (bad %d), want one bad record", body, got, st.Bad)
	case ok && (len(got) != 1 || got[0] != want):
		t.Fatalf("%q:\n got %v (bad %d)\nwant %v", body, got, st.Bad, want)
	}
}

// refJSON decodes a line by nextJSON's documented rules using encoding/json. valid is false
// for lines encoding/json refuses; ok is false for objects that are no journal entry.
func refJSON(line []byte) (o owned, ok, valid bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return o, false, json.Valid(line)
	}
	var ident string
	has := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return o, false, false
		}
		key := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return o, false, false
		}
		dst := map[string]*string{"MESSAGE": &o.Message, "_HOSTNAME": &o.Host, "_SYSTEMD_UNIT": &o.Unit,
			"SYSLOG_IDENTIFIER": &ident, "__CURSOR": &o.Cursor, "__REALTIME_TIMESTAMP": new(string)}[key]
		if dst == nil || has[key] {
			continue
		}
		v, usable := refValue(raw)
		if !usable {
			continue
		}
		if key == "__REALTIME_TIMESTAMP" {
			t, ok := record.ParseMicros([]byte(v))
			if !ok {
				continue
			}
			o.Time = t
		}
		*dst = v
		has[key] = true
	}
	if _, err := dec.Token(); err != nil { // '}'
		return o, false, false
	}
	if len(bytes.TrimSpace(line[dec.InputOffset():])) != 0 {
		return o, false, false
	}
	if o.Unit == "" {
		o.Unit = ident
	}
	return o, has["MESSAGE"] || has["__CURSOR"] || has["__REALTIME_TIMESTAMP"], true
}

func refValue(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	if string(raw) == "null" {
		return "", true
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) != nil {
		return "", false
	}
	if len(arr) == 0 {
		return "", true
	}
	first := bytes.TrimSpace(arr[0])
	switch {
	case first[0] == '"':
		json.Unmarshal(first, &s)
		return s, true
	case first[0] == '[':
		var inner []json.RawMessage
		json.Unmarshal(first, &inner)
		return refBytes(inner)
	}
	return refBytes(arr)
}

func refBytes(nums []json.RawMessage) (string, bool) {
	var b []byte
	for _, n := range nums {
		n = bytes.TrimSpace(n)
		v := 0
		for i, c := range n {
			if c < '0' || c > '9' || (i > 0 && n[0] == '0') {
				return "", false
			}
			v = v*10 + int(c-'0')
			if v > 255 {
				return "", false
			}
		}
		b = append(b, byte(v))
	}
	return string(b), true
}

// Anything journald can hold survives an export round trip.
func FuzzExportRoundTrip(f *testing.F) {
	f.Add("gpu07", "sglang.service", "Decode batch\n\x1b[0m", "s=1", uint64(1795165201000000))
	f.Fuzz(func(t *testing.T, host, unit, msg, cursor string, ts uint64) {
		ts %= 1e18
		// journalctl writes a value as text only when it is printable; the cursor always is.
		cursor = strings.NewReplacer("\n", "", "\r", "").Replace(cursor)
		var b bytes.Buffer
		for range 2 {
			b.WriteString("__CURSOR=" + cursor + "\n")
			b.WriteString("__REALTIME_TIMESTAMP=" + strconv.FormatUint(ts, 10) + "\n")
			for _, kv := range [][2]string{{"_HOSTNAME", host}, {"_SYSTEMD_UNIT", unit}, {"MESSAGE", msg}} {
				b.WriteString(kv[0] + "\n")
				binary.Write(&b, binary.LittleEndian, uint64(len(kv[1])))
				b.WriteString(kv[1] + "\n")
			}
			b.WriteString("\n")
		}
		got, st, _ := readAll(t, b.Bytes(), ReaderOptions{})
		want := owned{int64(ts), host, unit, msg, cursor}
		if len(got) != 2 || st.Bad != 0 || got[0] != want || got[1] != want {
			t.Fatalf("got %v (bad %d), want 2× %v", got, st.Bad, want)
		}
	})
}

// What encoding/json writes, the reader reads back as encoding/json would.
func FuzzJSONRoundTrip(f *testing.F) {
	f.Add("gpu07", "sglang.service", "Decode \"batch\"\n<&>\u2028", "s=1")
	f.Fuzz(func(t *testing.T, host, unit, msg, cursor string) {
		line, err := json.Marshal(map[string]any{"_HOSTNAME": host, "_SYSTEMD_UNIT": unit,
			"MESSAGE": msg, "__CURSOR": cursor, "OTHER": []any{1, map[string]any{"x": msg}}})
		if err != nil {
			t.Fatal(err)
		}
		checkJSONLine(t, line)
	})
}
