package scrape

import (
	"errors"
	"math"
	"testing"
)

// FuzzDecode: no exposition, however hostile, panics the decoder, grows it past MaxRanks or
// gives a value that is not finite, and a body it accepts decodes the same way twice.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		vllm{drafts: 10, draftTokens: 30, accepted: 20, perPos: []float64{9, 7, 4}, running: 2}.text(),
		vllm{drafts: 10, draftTokens: 30, accepted: 20, running: 2}.openMetrics(),
		sglangText(sglangRank{1, 2, 3.5, 0.6, 5, 99}),
		llamaCppText(10, 40, 20, 50, 0.75, []float64{10, 6, 3, 1}),
		trtllmText(30, 20, 1.7),
		"vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"99\"} 1\n",
		"vllm:num_requests_running{engine=\"-1\"} -Inf\n",
	} {
		f.Add([]byte(seed), "")
		f.Add([]byte(seed), "application/openmetrics-text; version=1.0.0; charset=utf-8")
	}
	f.Fuzz(func(t *testing.T, body []byte, ctype string) {
		var r, again Readings
		err := Decode(body, ctype, &r)
		if r.Len() > MaxRanks {
			t.Fatalf("%d ranks", r.Len())
		}
		for k, rd := range r.ranks {
			for s := slot(0); s < numSlots; s++ {
				if v, ok := rd.get(s); ok && (math.IsNaN(v) || math.IsInf(v, 0) || (s.isCounter() && v < 0)) {
					t.Fatalf("%v slot %d: %v", k, s, v)
				}
			}
			if rd.nPos > len(rd.perPos) {
				t.Fatalf("%d positions", rd.nPos)
			}
		}
		if err != nil {
			return
		}
		if err := Decode(body, ctype, &again); err != nil || again.Len() != r.Len() {
			t.Fatalf("second decode: %v, %d ranks vs %d", err, again.Len(), r.Len())
		}
	})
}

// TestNoProtobuf: a delimited-protobuf body announcing a 1 TB message is not decoded as
// protobuf (expfmt would try to allocate it) but refused as text.
func TestNoProtobuf(t *testing.T) {
	var r Readings
	body := []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x20} // varint 2^40
	err := Decode(body, "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited", &r)
	if !errors.Is(err, ErrFormat) || r.Len() != 0 {
		t.Fatalf("err %v, %d ranks", err, r.Len())
	}
}
