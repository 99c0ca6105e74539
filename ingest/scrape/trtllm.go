package scrape

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"

	"github.com/specwatch/specwatch/sample"
)

// TensorRT-LLM's trtllm-serve answers GET /metrics with the iteration statistics that piled up
// since the last GET, a JSON array, and forgets them: the executor's worker puts each
// iteration's record on a bounded queue and drops the oldest when it is full (tensorrt_llm/
// executor/worker.py, dispatch_stats_task). So each record is read once or never, and the
// reader must apply it once: records carry the executor's iteration counter ("iter") and, one
// per rank under attention data parallelism, "attentionDpRank". Per rank, a record at or before
// the last one applied is a duplicate (a response served twice) and is skipped; a gap in the
// counter is iterations the queue dropped, counted; a counter far behind the last is a restarted
// engine, and the rank starts again. Commit length is the counters' (numAcceptedTokens +
// numRequestsWithDraftTokens) / numRequestsWithDraftTokens over the interval, as TensorRT-LLM's
// own acceptance tests compute it, never the mean of its per-iteration acceptanceLength.

// drainRestartGap is how far behind the last applied iteration a record must be to mean a
// restarted engine rather than a duplicate: more iterations than any response holds.
const drainRestartGap = 1 << 16

// iterRecord is the part of one IterationStats record specwatch reads.
type iterRecord struct {
	Iter      *int64   `json:"iter"`
	Rank      *int     `json:"attentionDpRank"`
	LatencyMS *float64 `json:"iterLatencyMS"`
	Active    *float64 `json:"numActiveRequests"`
	Queued    *float64 `json:"numQueuedRequests"`
	Spec      *struct {
		Draft    float64 `json:"numDraftTokens"`
		Accepted float64 `json:"numAcceptedTokens"`
		Requests float64 `json:"numRequestsWithDraftTokens"`
	} `json:"specDecodingStats"`
}

// drainRank is one rank's place in the iteration stream.
type drainRank struct {
	last int64
	ok   bool
}

// drainCounts is what one drain did with its records.
type drainCounts struct {
	applied, duplicate, malformed, dropped int
}

// rankSums are one rank's records of one drain, summed.
type rankSums struct {
	records                   int
	latency                   float64
	latencies                 int
	active, queued            float64
	hasActive, hasQueued      bool
	draft, accepted, requests float64
	specRecords               int
}

// drainIterStats reads the target's iteration-stats endpoint once and applies its records.
func (s *Source) drainIterStats(ctx context.Context, t *target, now int64) (drainCounts, error) {
	buf, _ := s.bodies.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	defer func() {
		if buf.Cap() <= 1<<20 {
			s.bodies.Put(buf)
		}
	}()
	if _, err := s.get(ctx, t, t.IterStatsURL, "application/json", buf); err != nil {
		return drainCounts{}, fmt.Errorf("iteration stats %s: %w", t.statsName, err)
	}
	recs, c, err := decodeIterStats(buf.Bytes())
	if err != nil {
		return c, fmt.Errorf("iteration stats %s: %w: %w", t.statsName, ErrFormat, err)
	}
	sums := map[int]*rankSums{}
	for _, r := range recs {
		rank := 0
		if r.Rank != nil {
			rank = *r.Rank
		}
		if rank < 0 || rank >= MaxRanks {
			c.malformed++
			continue
		}
		if rank > 0 {
			t.adp = true // attention data parallelism: every rank is named
		}
		st := t.drain[rank]
		if st == nil {
			if len(t.drain) >= MaxRanks {
				c.malformed++
				continue
			}
			st = &drainRank{}
			t.drain[rank] = st
		}
		it := *r.Iter
		switch {
		case st.ok && it <= st.last && st.last-it < drainRestartGap:
			c.duplicate++
			continue
		case st.ok && it > st.last+1:
			c.dropped += int(it - st.last - 1)
		}
		st.last, st.ok = it, true
		c.applied++
		sum := sums[rank]
		if sum == nil {
			sum = &rankSums{}
			sums[rank] = sum
		}
		sum.add(r)
	}
	s.applyIterSums(t, now, sums)
	return c, nil
}

// decodeIterStats parses the array; each element is a record, or a record as a JSON string
// (the worker serialises each one with to_json_str). Records without an iteration counter are
// counted and skipped: without it a record could be applied twice. The result is in iteration
// order per rank.
func decodeIterStats(body []byte) ([]iterRecord, drainCounts, error) {
	var c drainCounts
	var raw []json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, c, err
	}
	out := make([]iterRecord, 0, len(raw))
	for _, m := range raw {
		m = bytes.TrimSpace(m)
		if len(m) > 0 && m[0] == '"' {
			var s string
			if json.Unmarshal(m, &s) != nil {
				c.malformed++
				continue
			}
			m = []byte(s)
		}
		var r iterRecord
		if json.Unmarshal(m, &r) != nil || r.Iter == nil || *r.Iter < 0 {
			c.malformed++
			continue
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return *out[i].Iter < *out[j].Iter })
	return out, c, nil
}

func (s *rankSums) add(r iterRecord) {
	s.records++
	if r.LatencyMS != nil && *r.LatencyMS >= 0 {
		s.latency += *r.LatencyMS / 1000
		s.latencies++
	}
	if r.Active != nil {
		s.active, s.hasActive = *r.Active, true
	}
	if r.Queued != nil {
		s.queued, s.hasQueued = *r.Queued, true
	}
	if sp := r.Spec; sp != nil && sp.Draft >= 0 && sp.Accepted >= 0 && sp.Requests >= 0 && sp.Accepted <= sp.Draft {
		s.draft += sp.Draft
		s.accepted += sp.Accepted
		s.requests += sp.Requests
		s.specRecords++
	}
}

// applyIterSums hands each rank's interval to the sink as one decode sample.
func (s *Source) applyIterSums(t *target, now int64, sums map[int]*rankSums) {
	unit := []byte(t.Labels["unit"])
	ctr, ns, pod := []byte(t.Labels["container"]), []byte(t.Labels["namespace"]), []byte(t.Labels["pod"])
	host := []byte(t.host)
	for rank, sum := range sums {
		var x sample.Sample
		x.Kind, x.Engine, x.Source, x.Time = sample.KindDecode, sample.EngineTRTLLM, sample.SourceMetrics, now
		x.Host, x.Unit, x.Rank = host, unit, []byte(t.rankName(rank))
		x.Container, x.Namespace, x.Pod = ctr, ns, pod
		if sum.hasActive {
			x.Set(sample.Running, sum.active)
		}
		if sum.hasQueued {
			x.Set(sample.Queue, sum.queued)
		}
		if sum.latencies > 0 {
			x.Set(sample.StepSeconds, sum.latency/float64(sum.latencies))
		}
		if sum.requests > 0 {
			x.Set(sample.Commit, (sum.accepted+sum.requests)/sum.requests)
			x.Set(sample.Accepted, sum.accepted)
			x.Set(sample.Drafted, sum.draft)
			x.Set(sample.Steps, sum.requests)
			if sum.draft > 0 {
				x.Set(sample.AcceptRate, sum.accepted/sum.draft)
			}
		}
		if x.Fields() == 0 {
			continue
		}
		s.sinkMu.Lock()
		s.o.Sink.ApplySample(sample.Matched, &x)
		s.sinkMu.Unlock()
	}
}

// rankName is an attention-DP rank's series rank as the engine's iteration log names its MPI
// rank (parse/trtllm.go): none for rank 0, whose lines a single-rank engine prints without a
// rank, else the number; with attention DP each rank serves its own DP rank.
func (t *target) rankName(rank int) string {
	if rank == 0 {
		return ""
	}
	return strconv.Itoa(rank)
}

// get reads url into buf, bounded in time and size, with the target's credentials, and returns
// the response's Content-Type.
func (s *Source) get(ctx context.Context, t *target, url, accept string, buf *bytes.Buffer) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", "specwatch")
	switch {
	case t.BearerToken != "":
		req.Header.Set("Authorization", "Bearer "+t.BearerToken)
	case t.Username != "":
		req.SetBasicAuth(t.Username, t.Password)
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("HTTP status %s", resp.Status)
	}
	buf.Reset()
	if _, err := buf.ReadFrom(io.LimitReader(resp.Body, s.o.MaxBodyBytes+1)); err != nil {
		return "", err
	}
	if int64(buf.Len()) > s.o.MaxBodyBytes {
		return "", fmt.Errorf("%w (%d bytes)", errSize, s.o.MaxBodyBytes)
	}
	return resp.Header.Get("Content-Type"), nil
}
