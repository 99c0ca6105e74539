package ingest

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"testing/iotest"
)

// bin encodes an export binary field.
func bin(key, val string) string {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(val)))
	return key + "\n" + string(n[:]) + val + "\n"
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want Shape
	}{
		{"empty", "", Raw},
		{"blank", "\n\n  \n", Raw},
		{"engine line", "[2026-11-20 09:00:01 TP0] Decode batch, #running-req: 1\n", Raw},
		{"vllm line", "INFO 11-20 09:00:01 [loggers.py:271] Engine 000: x\n", Raw},
		{"short-iso", "2026-11-20T09:00:01+0000 gpu07 python3[48211]: Decode batch\n", Raw},
		{"short", "Nov 20 09:00:01 gpu07 python3[48211]: Decode batch\n", Raw},
		{"json", `{"__CURSOR":"s=1","MESSAGE":"x"}` + "\n", JSON},
		{"json message only", `{"PRIORITY":"6","MESSAGE":[27,91]}`, JSON},
		{"json spaced", " \n{ \"__REALTIME_TIMESTAMP\" : \"1\" }\n", JSON},
		{"json-seq", "\x1e{\"MESSAGE\":\"x\"}\n", JSON},
		{"json with BOM", "\xef\xbb\xbf{\"MESSAGE\":\"x\"}\n", JSON},
		{"json not journal", `{"level":"info","msg":"x"}` + "\n", Raw},
		{"json key inside a string", `{"msg":"\"MESSAGE\":1"}` + "\n", Raw},
		{"json key on the second line only", "{\"a\":1}\n{\"MESSAGE\":\"x\"}\n", Raw},
		{"export", "__CURSOR=s=1\n__REALTIME_TIMESTAMP=1\nMESSAGE=x\n\n", Export},
		{"export message first", "MESSAGE=x\n\n", Export},
		{"text whose first line reads like a field", "MESSAGE=hello from a text log\n[2026-11-20 09:00:01 TP0] Decode batch, #running-req: 1\n", Raw},
		{"text of KEY=value lines", "MESSAGE=a\nUNIT=b\nnot a field\n", Raw},
		{"export after blank lines", "\n\n_HOSTNAME=h\nMESSAGE=x\n\n", Export},
		{"export CRLF", "__CURSOR=s=1\r\n__REALTIME_TIMESTAMP=1\r\n\r\n", Export},
		{"export binary message", bin("MESSAGE", "a\nb") + "\n", Export},
		{"export binary then marker", "_PID=1\n" + bin("FOO", "x\n\ny") + "MESSAGE=m\n\n", Export},
		{"export binary cut by the peek", bin("MESSAGE", strings.Repeat("x", 100))[:40], Export},
		{"env dump", "PATH=/usr/bin\nHOME=/root\n\nMESSAGE=x\n", Raw},
		{"bare word then text", "MESSAGE\nhello world, this is not a length\n", Raw},
		{"binary without newline after payload", "FOO\n" + bin("", "xy")[1:9] + "xyz\nMESSAGE=m\n\n", Raw},
		{"lower-case key", "message=x\n\n", Raw},
		{"digit first", "1MESSAGE=x\n\n", Raw},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Detect([]byte(tc.in)); got != tc.want {
				t.Errorf("Detect(%q) = %v, want %v", tc.in, got, tc.want)
			}
			// A reader fed one byte at a time stops peeking early and must agree.
			rd := NewReader(iotest.OneByteReader(strings.NewReader(tc.in)), ReaderOptions{})
			if got := rd.Shape(); got != tc.want {
				t.Errorf("NewReader(one byte at a time).Shape() = %v, want %v", got, tc.want)
			}
		})
	}
}

// Once detect says the answer is settled, no longer prefix may change it.
func TestDetectSettledPrefixes(t *testing.T) {
	for _, name := range []string{"journal.json", "journal.export", "journal.short-iso", "journal.cat"} {
		data := fixture(t, name)
		full := Detect(data[:min(len(data), PeekSize)])
		for n := range min(len(data), 3000) {
			if s, more := detect(data[:n]); !more && s != full {
				t.Fatalf("%s: prefix %d settled on %v, full input is %v", name, n, s, full)
			}
		}
	}
}

func TestShapeString(t *testing.T) {
	for s, want := range map[Shape]string{Auto: "auto", Raw: "raw", JSON: "json", Export: "export", 9: "shape(9)"} {
		if got := s.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(s), got, want)
		}
	}
}

// A live pipe that has delivered one line must not be held back waiting for 64 KiB.
func TestNewReaderDoesNotWaitForFullPeek(t *testing.T) {
	for _, in := range []string{
		"Decode batch, #running-req: 1\n",
		`{"MESSAGE":"x","__CURSOR":"c"}` + "\n",
		"__CURSOR=c\nMESSAGE=x\n\n",
	} {
		src := &stallReader{data: []byte(in)}
		rd := NewReader(src, ReaderOptions{})
		var e Entry
		if err := rd.Next(&e); err != nil || !bytes.Contains([]byte(in), e.Message) || len(e.Message) == 0 {
			t.Errorf("%q: Next = %v, %q", in, err, e.Message)
		}
	}
}

// stallReader delivers its data and then fails the test instead of blocking forever.
type stallReader struct {
	data []byte
	done bool
}

func (s *stallReader) Read(p []byte) (int, error) {
	if s.done {
		panic("read past the first record: the reader would block on a live pipe")
	}
	s.done = true
	return copy(p, s.data), nil
}
