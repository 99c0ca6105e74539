package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testjournal"
	"github.com/specwatch/specwatch/model"
)

// TestAnalyzeDamagedGzip: one damaged rotated log (truncated, padded with zeros, or followed by
// garbage) no longer loses the whole report: every file's data is read as far as it decodes,
// the damage is counted in the report and named on stderr, and the exit status is 0.
func TestAnalyzeDamagedGzip(t *testing.T) {
	dir := t.TempDir()
	lines := func(rank string, n int) []byte {
		var b bytes.Buffer
		for i := range n {
			fmt.Fprintf(&b, "[2026-11-20 09:%02d:%02d %s] Decode batch, #running-req: 1, #token: %d, token usage: 0.01, accept len: 3.00, accept rate: 0.40, cuda graph: True, gen throughput (token/s): 60.00, #queue-req: 0\n", i/60, i%60, rank, 100+i)
		}
		return b.Bytes()
	}
	gzipped := func(data []byte) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		return b.Bytes()
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	intact := write("a.log", lines("TP0", 100))
	truncated := gzipped(lines("TP1", 2000))
	for _, c := range []struct {
		name    string
		data    []byte
		damaged int64
		want    string // on stderr
	}{
		{"truncated", truncated[:len(truncated)/2], 1, "truncated gzip member"},
		{"zero padding", append(gzipped(lines("TP1", 100)), make([]byte, 512)...), 0, ""},
		{"trailing garbage", append(gzipped(lines("TP1", 100)), "garbage"...), 1, "trailing garbage"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(strings.ReplaceAll(c.name, " ", "-")+".log.1.gz", c.data)
			out, stderr, code := runCmd(t, "analyze", "--format", "json", "--timezone", "UTC", intact, p)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var r model.Report
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			ranks := map[string]int64{}
			for _, s := range r.Series {
				ranks[s.Labels.Rank] = s.Samples
			}
			if ranks["TP0"] != 100 || ranks["TP1"] == 0 {
				t.Errorf("samples per rank %v: want TP0's 100 and what decoded of TP1", ranks)
			}
			if r.Input.DamagedInputs != c.damaged || (c.want != "" && !strings.Contains(stderr, c.want)) || (c.want != "" && !strings.Contains(stderr, p)) {
				t.Errorf("damaged_inputs %d, stderr %q; want %d and %q naming %s", r.Input.DamagedInputs, stderr, c.damaged, c.want, p)
			}
		})
	}
}

// TestAnalyzeCountsDropped: samples past the series cap are reported as dropped (they were
// read and matched but are in no series), in JSON and in the text report.
func TestAnalyzeCountsDropped(t *testing.T) {
	var b bytes.Buffer
	for i := range 50 {
		fmt.Fprintf(&b, "[2026-11-20 09:00:%02d TP%d] Decode batch, #running-req: 1, #token: 100, accept len: 3.00, gen throughput (token/s): 60.00, #queue-req: 0\n", i%60, i)
	}
	p := filepath.Join(t.TempDir(), "many.log")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := analyzeJSON(t, "--model.max-series", "10", p)
	if len(r.Series) != 10 || r.Input.Dropped != 40 || r.Input.Samples != 50 {
		t.Errorf("%d series, %d dropped of %d samples; want 10, 40, 50", len(r.Series), r.Input.Dropped, r.Input.Samples)
	}
	out, _, _ := runCmd(t, "analyze", "--model.max-series", "10", p)
	if !strings.Contains(out, "40 samples dropped past the series cap") {
		t.Errorf("text report does not say what was dropped:\n%.300s", out)
	}
}

// TestAnalyzeByteOrderMark: a UTF-8 byte-order mark before the first line is not a record: it
// made a phantom series (no host, unit or rank, one sample dated 1970), as JSON as in text.
func TestAnalyzeByteOrderMark(t *testing.T) {
	line := "[2026-11-20 09:00:%02d TP0] Decode batch, #running-req: 1, #token: 100, accept len: 3.00, gen throughput (token/s): 60.00, #queue-req: 0\n"
	for _, shape := range []string{"text", "json"} {
		var b bytes.Buffer
		b.WriteString("\ufeff")
		for i := range 5 {
			l := fmt.Sprintf(line, i)
			if shape == "json" {
				l = fmt.Sprintf(`{"__REALTIME_TIMESTAMP":"%d","_HOSTNAME":"gpu07","_SYSTEMD_UNIT":"sglang.service","MESSAGE":%q}`+"\n", 1795165200000000+i*1000000, strings.TrimSuffix(l, "\n"))
			}
			b.WriteString(l)
		}
		p := filepath.Join(t.TempDir(), "bom.log")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		r := analyzeJSON(t, p)
		if len(r.Series) != 1 || r.Series[0].Samples != 5 || r.Series[0].Labels.Rank != "TP0" || r.Series[0].First.Year() != 2026 {
			t.Errorf("%s with a BOM: %+v", shape, r.Series)
		}
	}
}

// TestAnalyzeDatesOutOfRange: a line or a journal entry dated where Unix nanoseconds cannot
// reach (before 1678, from 2262) is counted as malformed, never wrapped into a plausible
// wrong date; lines before 1970 are times like any other.
func TestAnalyzeDatesOutOfRange(t *testing.T) {
	line := func(date string, tok int) string {
		return fmt.Sprintf("[%s TP0] Decode batch, #running-req: 1, #token: %d, accept len: 3.00, gen throughput (token/s): 60.00, #queue-req: 0\n", date, tok)
	}
	var b strings.Builder
	for i := range 5 {
		b.WriteString(line(fmt.Sprintf("2026-11-20 09:00:%02d", i), 100+i))
	}
	b.WriteString(line("9999-12-31 23:59:59", 1))
	b.WriteString(line("1600-01-01 00:00:00", 2))
	p := filepath.Join(t.TempDir(), "dates.log")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := analyzeJSON(t, p)
	if len(r.Series) != 1 || r.Input.Malformed != 2 || r.Series[0].Samples != 5 ||
		r.Series[0].First.Format(time.DateTime) != "2026-11-20 09:00:00" || r.Series[0].Last.Format(time.DateTime) != "2026-11-20 09:00:04" {
		t.Errorf("input %+v, series %+v: want 5 samples in 2026 and 2 malformed", r.Input, r.Series)
	}

	// Before 1970: first and last move like any other time.
	b.Reset()
	for i := range 3 {
		b.WriteString(line(fmt.Sprintf("1969-07-20 20:17:%02d", i), 100+i))
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r = analyzeJSON(t, p)
	if len(r.Series) != 1 || r.Series[0].First.Format(time.DateTime) != "1969-07-20 20:17:00" || r.Series[0].Last.Format(time.DateTime) != "1969-07-20 20:17:02" {
		t.Errorf("1969: %+v", r.Series)
	}

	// A journal entry dated 2500 (journald and journal-remote accept it).
	var exp bytes.Buffer
	for i, us := range []int64{1795165200000000, 1795165201000000, 16725225600000000, 1795165202000000} {
		fmt.Fprintf(&exp, "__REALTIME_TIMESTAMP=%d\n_HOSTNAME=gpu07\n_SYSTEMD_UNIT=sglang.service\nMESSAGE=%s\n\n", us, strings.TrimSuffix(line("2026-11-20 09:00:00", 200+i), "\n"))
	}
	jdir := t.TempDir()
	testjournal.BuildFileFromExport(t, jdir, &exp)
	r = analyzeJSON(t, "--journal.directory", jdir)
	if len(r.Series) != 1 || r.Series[0].Samples != 3 || r.Input.Malformed != 1 || r.Series[0].First.Year() != 2026 || r.Series[0].Last.Year() != 2026 {
		t.Errorf("journal with an entry dated 2500: input %+v, series %+v", r.Input, r.Series)
	}
}

// TestAnalyzeYearlessAcrossNewYear: vLLM's year-less stamps in a log begun in December and last
// written in January are December of the year before the file's modification time.
func TestAnalyzeYearlessAcrossNewYear(t *testing.T) {
	var b strings.Builder
	for i, d := range []string{"12-30 23:00:00", "12-31 23:59:00", "01-01 00:01:00", "01-02 08:00:00"} {
		fmt.Fprintf(&b, "INFO %s [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: %d.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%%, Prefix cache hit rate: 0.0%%\n", d, 50+i)
	}
	p := filepath.Join(t.TempDir(), "vllm.log")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2027, 1, 2, 9, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	r := analyzeJSON(t, p)
	if len(r.Series) != 1 || r.Series[0].First.Format(time.DateTime) != "2026-12-30 23:00:00" || r.Series[0].Last.Format(time.DateTime) != "2027-01-02 08:00:00" {
		t.Errorf("series %+v: want 2026-12-30 to 2027-01-02", r.Series)
	}
}

// TestAnalyzeMalformedKeyValueNoPhantom: a broken key=value statistics line that no prefix ties
// to an engine is counted as malformed against the engine logging on its host and unit, and
// starts no series of its own (it made one with empty labels, dated 1970, in the report and
// on /metrics, and format_drift landed on it).
func TestAnalyzeMalformedKeyValueNoPhantom(t *testing.T) {
	var exp bytes.Buffer
	msgs := []string{"[2026-11-20 09:00:01 TP0] Decode batch, #running-req: 1, #token: 100, accept len: 3.00, gen throughput (token/s): 60.00, #queue-req: 0"}
	for range 30 {
		msgs = append(msgs, "avg_commit_len=banana, step_ms=")
	}
	for i, m := range msgs {
		fmt.Fprintf(&exp, "__REALTIME_TIMESTAMP=%d\n_HOSTNAME=gpu07\n_SYSTEMD_UNIT=sglang.service\nMESSAGE=%s\n\n", 1795165200000000+int64(i)*1000000, m)
	}
	p := filepath.Join(t.TempDir(), "kv.export")
	if err := os.WriteFile(p, exp.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := analyzeJSON(t, p)
	if len(r.Series) != 1 || r.Series[0].Labels.Rank != "TP0" || r.Input.Malformed != 30 {
		t.Fatalf("input %+v, series %+v: want the one TP0 series and 30 malformed lines", r.Input, r.Series)
	}
	drift := false
	for _, a := range r.Series[0].Anomalies {
		drift = drift || a.Kind == "format_drift"
	}
	if !drift {
		t.Errorf("format_drift not raised on the rank whose lines broke: %+v", r.Series[0].Anomalies)
	}
}

// TestAnalyzeSkipsUnreadableInput: one input that cannot be read among good ones (a directory,
// a file deleted meanwhile) is named on stderr and skipped; the report covers the good ones
// and the exit status is 1 (issue 27, item 19: no report at all). With no readable input there
// is no report.
func TestAnalyzeSkipsUnreadableInput(t *testing.T) {
	good := analyzeJSON(t, "testdata/multi.log")
	dir, missing := t.TempDir(), filepath.Join(t.TempDir(), "deleted.log")
	out, stderr, code := runCmd(t, "analyze", "--format", "json", "--timezone", "UTC", "testdata/multi.log", dir, missing)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	var r model.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("no report for the good input: %v\n%s", err, out)
	}
	if r.Input.Samples != good.Input.Samples || r.Input.Lines != good.Input.Lines {
		t.Errorf("input %+v, want the good file's %+v", r.Input, good.Input)
	}
	for _, want := range []string{dir, missing, "2 of 3 inputs could not be read"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q does not name %q", stderr, want)
		}
	}
	out, _, code = runCmd(t, "analyze", "--format", "json", dir, missing)
	if code != 1 || out != "" {
		t.Errorf("no readable input: exit %d, stdout %q", code, out)
	}
}

// TestAnalyzeDockerJSONLongFirstRecord: a Docker json-file whose first record is over 64 KiB
// (dockerd writes '<' as \u003c, six bytes for one) is still read as json-file: its 200 engine
// lines are samples, none malformed, no format_drift (issue 27, item 12: 0 of 200 samples).
func TestAnalyzeDockerJSONLongFirstRecord(t *testing.T) {
	var b strings.Builder
	rec := func(msg string, sec int) {
		m, _ := json.Marshal(msg + "\n")
		fmt.Fprintf(&b, `{"log":%s,"stream":"stderr","time":"2026-11-20T09:%02d:%02d.000000000Z"}`+"\n", m, sec/60, sec%60)
	}
	b.WriteString(`{"log":"`)
	b.WriteString(strings.Repeat(`\u003c`, 12000))
	b.WriteString(`\n","stream":"stdout","time":"2026-11-20T09:00:00.000000000Z"}` + "\n")
	for i := range 200 {
		rec(fmt.Sprintf("[2026-11-20 09:00:%02d TP0] Decode batch, #running-req: 1, #token: %d, token usage: 0.00, accept len: 3.50, accept rate: 0.41, cuda graph: True, gen throughput (token/s): 80.00, #queue-req: 0", i%60, 100+i), i)
	}
	path := filepath.Join(t.TempDir(), "abc-json.log")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := analyzeJSON(t, path)
	if r.Input.Samples != 200 || r.Input.Malformed != 0 {
		t.Errorf("input %+v: want 200 samples, none malformed", r.Input)
	}
	for _, s := range r.Series {
		for _, a := range s.Anomalies {
			if a.Kind == "format_drift" {
				t.Errorf("format_drift: %+v", a)
			}
		}
	}
}
