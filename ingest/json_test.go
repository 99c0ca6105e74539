package ingest

import (
	"strings"
	"testing"
)

func TestReaderJSON(t *testing.T) {
	full := owned{Time: 1795165201000000, Host: "gpu07", Unit: "sglang.service", Message: "hi", Cursor: "s=1;i=2"}
	line := `{"__CURSOR":"s=1;i=2","__REALTIME_TIMESTAMP":"1795165201000000","_HOSTNAME":"gpu07","_SYSTEMD_UNIT":"sglang.service","SYSLOG_IDENTIFIER":"python3","MESSAGE":"hi"}`
	m := func(msg string) owned { return owned{Message: msg} }
	nested := `"X":{"a":[1,{"b":null}],"c":true,"d":-1.5e3,"e":"\"}"},"Y":[[],[[]],{}],`
	deep := `{"X":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `,"MESSAGE":"x"}`
	runCases(t, JSON, []readerCase{
		{name: "all fields", in: line + "\n", want: []owned{full}},
		{name: "CRLF, blank lines, no final newline", in: "\n" + line + "\r\n\r\n  \n" + line, want: []owned{full, full}},
		{name: "json-seq", in: "\x1e" + line + "\n\x1e" + line + "\n", want: []owned{full, full}},
		{name: "escapes", in: `{"MESSAGE":"a\"b\\c\/d\b\f\n\r\t\u00e9\u2713"}` + "\n", want: []owned{m("a\"b\\c/d\b\f\n\r\té✓")}},
		{name: "surrogate pair", in: `{"MESSAGE":"\ud83d\ude00!"}` + "\n", want: []owned{m("😀!")}},
		{name: "lone surrogates", in: `{"MESSAGE":"\ud800x\udc00\ud800\u0041"}` + "\n", want: []owned{m("\uFFFDx\uFFFD\uFFFDA")}},
		{name: "raw invalid UTF-8 kept", in: "{\"MESSAGE\":\"a\xffb\"}\n", want: []owned{m("a\xffb")}},
		{name: "byte array", in: `{"MESSAGE":[27,91,49,109,0,255,104]}` + "\n", want: []owned{m("\x1b[1m\x00\xffh")}},
		{name: "empty byte array", in: `{"MESSAGE":[],"__CURSOR":"c"}` + "\n", want: []owned{{Cursor: "c"}}},
		{name: "repeated field strings", in: `{"MESSAGE":["first","second"]}` + "\n", want: []owned{m("first")}},
		{name: "repeated field byte arrays", in: `{"MESSAGE":[[104,105],"x",[1]]}` + "\n", want: []owned{m("hi")}},
		{name: "null message", in: `{"MESSAGE":null,"__CURSOR":"c"}` + "\n", want: []owned{{Cursor: "c"}}},
		{name: "unit falls back to identifier", in: `{"SYSLOG_IDENTIFIER":"vllm","MESSAGE":"x"}` + "\n", want: []owned{{Unit: "vllm", Message: "x"}}},
		{name: "empty unit falls back too", in: `{"_SYSTEMD_UNIT":"","SYSLOG_IDENTIFIER":"vllm","MESSAGE":"x"}` + "\n", want: []owned{{Unit: "vllm", Message: "x"}}},
		{name: "other fields skipped", in: "{" + nested + `"MESSAGE":"x"}` + "\n", want: []owned{m("x")}},
		{name: "first of repeated keys", in: `{"MESSAGE":"a","MESSAGE":"b","_HOSTNAME":"h","_HOSTNAME":"i"}` + "\n", want: []owned{{Host: "h", Message: "a"}}},
		{name: "escaped key", in: `{"MESS\u0041GE":"x"}` + "\n", want: []owned{m("x")}},
		{name: "damaged timestamp", in: `{"__REALTIME_TIMESTAMP":"12x","MESSAGE":"x"}` + "\n", want: []owned{m("x")}},
		{name: "timestamp overflow", in: `{"__REALTIME_TIMESTAMP":"99999999999999999999","MESSAGE":"x"}` + "\n", want: []owned{m("x")}},
		{name: "not a byte", in: `{"MESSAGE":[1,256],"__CURSOR":"c"}` + "\n", want: []owned{{Cursor: "c"}}},
		{name: "fraction is not a byte", in: `{"MESSAGE":[1.0],"__CURSOR":"c"}` + "\n", want: []owned{{Cursor: "c"}}},
		{name: "wrong type ignored", in: `{"MESSAGE":{"a":1},"_HOSTNAME":7,"__CURSOR":"c"}` + "\n", want: []owned{{Cursor: "c"}}},
		{name: "bad line between good ones", in: line + "\n{\"MESSAGE\":\"x\"\n" + line + "\n", want: []owned{full, full}, bad: 1},
		{name: "garbage lines", in: "hello\n[1,2]\n{}\n{\"a\":1}\n" + line + "\n", want: []owned{full}, bad: 4},
		{name: "trailing garbage", in: `{"MESSAGE":"x"} {"MESSAGE":"y"}` + "\n", bad: 1},
		{name: "raw control character", in: "{\"MESSAGE\":\"a\tb\"}\n", bad: 1},
		{name: "bad escape", in: `{"MESSAGE":"a\xb"}` + "\n", bad: 1},
		{name: "bad hex", in: `{"MESSAGE":"\u12g4"}` + "\n", bad: 1},
		{name: "leading zero", in: `{"MESSAGE":[01]}` + "\n", bad: 1},
		{name: "too deep", in: deep + "\n", bad: 1},
		{name: "missing colon", in: `{"MESSAGE" "x"}` + "\n", bad: 1},
		{name: "cut final line with message", in: line + "\n" + `{"MESSAGE":"x","__CURSOR":"s=`, want: []owned{full, m("x")}},
		{name: "cut final line without message", in: line + "\n" + `{"__CURSOR":"c","MESSAGE":"x`, want: []owned{full}, bad: 1},
		{name: "cut final byte array", in: `{"MESSAGE":[1,2`, bad: 1},
		{name: "long line kept whole message", in: `{"MESSAGE":"x","Y":"` + strings.Repeat("y", 300) + "\"}\n" + line + "\n",
			max: 200, want: []owned{m("x"), full}, trunc: 1},
		{name: "long line cut in the message", in: `{"MESSAGE":"` + strings.Repeat("y", 300) + "\"}\n" + line + "\n",
			max: 200, want: []owned{full}, bad: 1, trunc: 1},
	})
}

func TestReaderJSONNullCounted(t *testing.T) {
	_, st, _ := readAll(t, []byte(`{"MESSAGE":null,"__CURSOR":"c"}`+"\n"+`{"MESSAGE":"x"}`+"\n"), ReaderOptions{Shape: JSON})
	if st.NullMessages != 1 || st.Entries != 2 {
		t.Errorf("stats %+v", st)
	}
}
