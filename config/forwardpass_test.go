package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/ingest/fwdpass"
	"github.com/specwatch/specwatch/sample"
)

// TestForwardPassConfig: the forward_pass: list maps onto the source's endpoints, an SGLang
// entry's dp_size defaulting to its ranks'; a change of the list waits for a restart.
func TestForwardPassConfig(t *testing.T) {
	cfg, err := Load(writeConfig(t, `
forward_pass:
  - engine: vllm
    endpoint: tcp://127.0.0.1:20380
    ranks: [0, 1, 2, 3]
    labels: {unit: vllm.service}
  - engine: sglang
    endpoint: ipc:///run/sglang/fpm
    ranks: [0, 1]
    tp_size: 8
    dp_attention: true
    rank_labels: {1: "DP1 ATTN_CP1 TP4"}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []fwdpass.Endpoint{
		{Engine: sample.EngineVLLM, Base: "tcp://127.0.0.1:20380", Ranks: []int{0, 1, 2, 3}, Labels: map[string]string{"unit": "vllm.service"},
			Topology: fwdpass.Topology{DPSize: 4}},
		{Engine: sample.EngineSGLang, Base: "ipc:///run/sglang/fpm", Ranks: []int{0, 1}, RankLabels: map[int]string{1: "DP1 ATTN_CP1 TP4"},
			Topology: fwdpass.Topology{DPSize: 2, TPSize: 8, DPAttention: true}},
	}
	if got := cfg.ForwardPassEndpoints(); !reflect.DeepEqual(got, want) {
		t.Errorf("endpoints\n%+v\nwant\n%+v", got, want)
	}
	old := cfg
	cfg.ForwardPass = cfg.ForwardPass[:1]
	if k := RestartKeys(old, cfg); !reflect.DeepEqual(k, []string{"forward_pass"}) {
		t.Errorf("restart keys %v", k)
	}
}

// TestForwardPassConfigRefused: each mistake names its key.
func TestForwardPassConfigRefused(t *testing.T) {
	for _, c := range []struct{ yaml, key string }{
		{"- {engine: llamacpp, endpoint: tcp://127.0.0.1:1}", "forward_pass[0].engine"},
		{"- {engine: vllm, endpoint: 'tcp://*:20380'}", "forward_pass[0].endpoint"},
		{"- {engine: vllm, endpoint: http://127.0.0.1:20380}", "forward_pass[0].endpoint"},
		{"- {engine: vllm, endpoint: tcp://127.0.0.1:20380, ranks: [-1]}", "forward_pass[0].ranks"},
		{"- {engine: vllm, endpoint: tcp://127.0.0.1:20380, ranks: [1, 1]}", "forward_pass[0].ranks"},
		{"- {engine: vllm, endpoint: tcp://127.0.0.1:20380, labels: {rank: x}}", "forward_pass[0].labels.rank"},
		{"- {engine: vllm, endpoint: tcp://127.0.0.1:20380, tp_size: 2}", "forward_pass[0].tp_size"},
		{"- {engine: sglang, endpoint: ipc:///x, ep_size: -1}", "forward_pass[0].ep_size"},
	} {
		_, err := Load(writeConfig(t, "forward_pass:\n  "+c.yaml+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.key+":") {
			t.Errorf("%s: %v, want an error naming %s", c.yaml, err, c.key)
		}
	}
}

// TestForwardPassFlags: --forward-pass.endpoint replaces the list, with --forward-pass.ranks
// and --forward-pass.label; a unit label on two endpoints, a bad value or the two alone are
// usage errors.
func TestForwardPassFlags(t *testing.T) {
	o := Overrides{ForwardPass: []string{"vllm=tcp://127.0.0.1:20380"}, ForwardPassRanks: "0-1,4",
		ForwardPassLabels: []string{"unit=vllm.service"}, Given: map[string]bool{"forward-pass.ranks": true}}
	cfg := Default()
	cfg.ForwardPass = []ForwardPassConfig{{Engine: "sglang", Endpoint: "ipc:///x"}}
	if err := o.Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	want := []ForwardPassConfig{{Engine: "vllm", Endpoint: "tcp://127.0.0.1:20380", Ranks: []int{0, 1, 4}, Labels: map[string]string{"unit": "vllm.service"}}}
	if !reflect.DeepEqual(cfg.ForwardPass, want) {
		t.Errorf("%+v", cfg.ForwardPass)
	}
	for _, bad := range []Overrides{
		{ForwardPass: []string{"vllm"}},
		{ForwardPass: []string{"vllm=tcp://127.0.0.1:1"}, ForwardPassRanks: "3-1"},
		{ForwardPass: []string{"vllm=tcp://127.0.0.1:1", "vllm=tcp://127.0.0.1:2"}, ForwardPassLabels: []string{"unit=u"}},
		{ForwardPassLabels: []string{"unit=u"}},
		{ForwardPassRanks: "0-3", Given: map[string]bool{"forward-pass.ranks": true}},
	} {
		c := Default()
		if err := bad.Apply(&c); !errors.Is(err, ErrFlag) {
			t.Errorf("%+v: %v, want a usage error", bad, err)
		}
	}
}
