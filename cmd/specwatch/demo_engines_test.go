package main

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/specwatch/specwatch/demo"
)

// TestDemoEngines: the engines scenario shows the newest telemetry live. The SGLang rank's
// forward passes, published on loopback by the simulated engine and read by the forward-pass
// source, fit its step model (within 3 % of the simulator's 30 ms + 2 ms per 1k tokens) in the
// series its decode log gives the commit length; the TensorRT-LLM service's iteration log makes
// one series per rank; the scraped TensorRT-LLM engine's two endpoints make one per attention-DP
// rank, its commit length from the counters; no forward-pass message is lost.
func TestDemoEngines(t *testing.T) {
	p := startProc(t, "demo", "--scenario", "engines", "--web.listen-address", "127.0.0.1:0", "--speed", "20")
	type series struct {
		Labels    map[string]string `json:"labels"`
		StepModel *struct {
			FixedMS      float64 `json:"fixed_ms"`
			MSPer1kToken float64 `json:"ms_per_1k_tokens"`
			N            int     `json:"n"`
		} `json:"step_model"`
		CommitLen *struct {
			Mean float64 `json:"mean"`
		} `json:"commit_len"`
		Sources *struct {
			Step      string `json:"step"`
			CommitLen string `json:"commit_len"`
		} `json:"sources"`
	}
	key := func(s series) string { return s.Labels["host"] + "/" + s.Labels["engine"] + "/" + s.Labels["rank"] }
	var got map[string]series
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var rep struct {
			Series []series `json:"series"`
		}
		got = map[string]series{}
		if json.Unmarshal([]byte(get(p.url("/api/v1/report"))), &rep) == nil {
			for _, s := range rep.Series {
				got[key(s)] = s
			}
		}
		fp := got[demo.PassesHost+"/sglang/"]
		if fp.StepModel != nil && fp.StepModel.N >= 100 && fp.CommitLen != nil && len(got) >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no forward-pass step model with 100 points and five series within 2 minutes: %+v", got)
		}
		time.Sleep(200 * time.Millisecond)
	}
	fp := got[demo.PassesHost+"/sglang/"]
	if fp.Labels["unit"] != demo.PassesUnit || fp.Sources == nil || fp.Sources.Step != "forward_pass" {
		t.Errorf("SGLang rank %v: sources %+v, want its step from the forward passes", fp.Labels, fp.Sources)
	}
	if ea, eb := fp.StepModel.FixedMS/30-1, fp.StepModel.MSPer1kToken/2-1; math.Abs(ea) > 0.03 || math.Abs(eb) > 0.03 {
		t.Errorf("step model %.3f ms + %.4f ms per 1k tokens, truth 30 + 2", fp.StepModel.FixedMS, fp.StepModel.MSPer1kToken)
	}
	if c := fp.CommitLen.Mean; !(c > 2 && c < 5) {
		t.Errorf("SGLang rank's commit length %.3f, want the log's (about 3.5)", c)
	}
	for _, k := range []string{demo.TRTLogHost + "/trtllm/", demo.TRTLogHost + "/trtllm/1"} {
		if s, ok := got[k]; !ok || s.Labels["unit"] != demo.TRTLogUnit {
			t.Errorf("no TensorRT-LLM log series %s: %+v", k, s)
		}
	}
	for _, k := range []string{demo.TRTScrapHost + "/trtllm/", demo.TRTScrapHost + "/trtllm/1"} {
		s, ok := got[k]
		if !ok || s.CommitLen == nil || s.Sources == nil || s.Sources.CommitLen != "metrics" {
			t.Errorf("scraped TensorRT-LLM rank %s: %+v, want its commit length from the counters", k, s)
		}
	}
	m := get(p.url("/metrics"))
	if d := regexp.MustCompile(`specwatch_forward_pass_messages_total\{[^}]*kind="decode"\} (\d+)`).FindStringSubmatch(m); d == nil {
		t.Error("/metrics counts no forward-pass decode messages")
	} else if n, _ := strconv.Atoi(d[1]); n < 100 {
		t.Errorf("%d forward-pass decode messages", n)
	}
	if !regexp.MustCompile(`specwatch_forward_pass_lost_messages_total\{[^}]*\} 0\n`).MatchString(m) {
		t.Error("forward-pass messages lost")
	}
}
