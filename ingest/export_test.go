package ingest

import (
	"encoding/binary"
	"strings"
	"testing"
)

func TestReaderExport(t *testing.T) {
	rec := "__CURSOR=s=1;i=2\n__REALTIME_TIMESTAMP=1795165201000000\n__MONOTONIC_TIMESTAMP=5\n" +
		"_HOSTNAME=gpu07\n_SYSTEMD_UNIT=sglang.service\nSYSLOG_IDENTIFIER=python3\nMESSAGE=hi\n\n"
	full := owned{Time: 1795165201000000, Host: "gpu07", Unit: "sglang.service", Message: "hi", Cursor: "s=1;i=2"}
	m := func(msg string) owned { return owned{Message: msg} }
	var huge [8]byte
	binary.LittleEndian.PutUint64(huge[:], 1<<62)
	runCases(t, Export, []readerCase{
		{name: "text fields", in: rec, want: []owned{full}},
		{name: "concatenated and blank lines", in: rec + rec + "\n\n" + rec, want: []owned{full, full, full}},
		{name: "binary message", in: bin("MESSAGE", "a\nb\x00\x1b[0m\n\n") + "\n", want: []owned{m("a\nb\x00\x1b[0m\n\n")}},
		{name: "binary other fields", in: bin("_HOSTNAME", "h\n") + bin("X", "\n\n") + "MESSAGE=x\n\n", want: []owned{{Host: "h\n", Message: "x"}}},
		{name: "empty binary", in: bin("MESSAGE", "") + "__CURSOR=c\n\n", want: []owned{{Cursor: "c"}}},
		{name: "first of a repeated field", in: "MESSAGE=a\n" + bin("MESSAGE", "b\n") + "\n", want: []owned{m("a")}},
		{name: "unit falls back to identifier", in: "SYSLOG_IDENTIFIER=vllm\nMESSAGE=x\n\n", want: []owned{{Unit: "vllm", Message: "x"}}},
		{name: "value with equals signs", in: "MESSAGE=a=b==\n\n", want: []owned{m("a=b==")}},
		{name: "CRLF", in: strings.ReplaceAll(rec, "\n", "\r\n"), want: []owned{full}},
		{name: "CRLF after binary", in: strings.TrimSuffix(bin("MESSAGE", "a\nb"), "\n") + "\r\n\r\n", want: []owned{m("a\nb")}},
		{name: "no final blank line", in: rec + strings.TrimSuffix(rec, "\n"), want: []owned{full, full}},
		{name: "cut in a text value", in: rec + "__CURSOR=c\nMESSAGE=hel", want: []owned{full, {Message: "hel", Cursor: "c"}}},
		{name: "cut after the message", in: rec + "MESSAGE=x\n_HOSTNAME=h\n_PI", want: []owned{full, {Host: "h", Message: "x"}}},
		{name: "cut in a binary field after the message", in: rec + "MESSAGE=x\n" + bin("Y", "abcdef")[:12], want: []owned{full, m("x")}},
		{name: "cut before the message", in: rec + "__CURSOR=c\n_HOSTNAME=h\n", want: []owned{full}, bad: 1},
		{name: "cut in a binary message", in: rec + bin("MESSAGE", "abcdef")[:14], want: []owned{full}, bad: 1},
		{name: "no journal field", in: "_HOSTNAME=h\n\n" + rec, want: []owned{full}, bad: 1},
		{name: "line that is no field", in: "MESSAGE=x\nhello world\n\n" + rec, want: []owned{full}, bad: 1},
		{name: "lower-case key", in: "message=x\n\n" + rec, want: []owned{full}, bad: 1},
		{name: "huge binary length", in: "MESSAGE\n" + string(huge[:]) + "xx\n\n" + rec, want: []owned{full}, bad: 1},
		{name: "length over the limit", in: bin("MESSAGE", strings.Repeat("x", 300)) + "\n" + rec, max: 200, want: []owned{full}, bad: 1},
		{name: "bogus length hides the next record", in: "MESSAGE\n\x40\x00\x00\x00\x00\x00\x00\x00\n\n" + rec + strings.Repeat("-", 80) + "\n", want: []owned{full}, bad: 2},
		{name: "bogus length past the end", in: "MESSAGE\n\xff\x00\x00\x00\x00\x00\x00\x00\n\n" + rec, want: []owned{full}, bad: 1},
		{name: "text value cut at the limit", in: "MESSAGE=" + strings.Repeat("x", 300) + "\n__CURSOR=c\n\n" + rec, max: 200,
			want: []owned{{Message: strings.Repeat("x", 192), Cursor: "c"}, full}, trunc: 1},
		{name: "field name over the limit", in: strings.Repeat("A", 300) + "\n\n" + rec, max: 200, want: []owned{full}, bad: 1, trunc: 1},
		{name: "NUL and invalid UTF-8 in text", in: "MESSAGE=a\x00\xff\n\n", want: []owned{m("a\x00\xff")}},
	})
}

// A 1 MiB message arrives whole in every shape with the default limit.
func TestMiBMessage(t *testing.T) {
	msg := strings.Repeat("m", 1<<20)
	for shape, in := range map[Shape]string{
		JSON:   `{"__CURSOR":"c","MESSAGE":"` + msg + `"}` + "\n" + `{"MESSAGE":"next"}` + "\n",
		Export: "__CURSOR=c\nMESSAGE=" + msg + "\n\n" + bin("MESSAGE", msg+"\n") + "\nMESSAGE=next\n\n",
	} {
		got, st, _ := readAll(t, []byte(in), ReaderOptions{})
		if len(got) < 2 || got[0].Message != msg || got[len(got)-1].Message != "next" || st.Bad+st.Truncated != 0 {
			t.Errorf("%v: %d entries, stats %+v", shape, len(got), st)
		}
		if shape == Export && (len(got) != 3 || got[1].Message != msg+"\n") {
			t.Errorf("binary 1 MiB message lost")
		}
	}
}
