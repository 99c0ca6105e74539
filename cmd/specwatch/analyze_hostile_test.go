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
			out, stderr, code := runCmd(t, "analyze", "--format", "json", "--tz", "UTC", intact, p)
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
	r := analyzeJSON(t, "--max-series", "10", p)
	if len(r.Series) != 10 || r.Input.Dropped != 40 || r.Input.Samples != 50 {
		t.Errorf("%d series, %d dropped of %d samples; want 10, 40, 50", len(r.Series), r.Input.Dropped, r.Input.Samples)
	}
	out, _, _ := runCmd(t, "analyze", "--max-series", "10", p)
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
