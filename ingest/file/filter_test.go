package file

import (
	"testing"

	"github.com/specwatch/specwatch/ingest/containerlog"
)

func TestFilter(t *testing.T) {
	engine := containerlog.Meta{Container: "sglang-tp0", Image: "lmsysorg/sglang:v0.5.4"}
	sidecar := containerlog.Meta{Container: "node-exporter", Image: "prom/node-exporter:v1.9"}
	pod := containerlog.Meta{Container: "engine", Namespace: "inference", Pod: "vllm-0"}
	system := containerlog.Meta{Container: "coredns", Namespace: "kube-system", Pod: "coredns-1"}
	for _, tc := range []struct {
		name string
		f    Filter
		m    containerlog.Meta
		want bool
	}{
		{"zero accepts", Filter{}, sidecar, true},
		{"image include", Filter{Include: Patterns{Images: []string{"lmsysorg/sglang:*", "vllm/*"}}}, engine, true},
		{"image include refuses", Filter{Include: Patterns{Images: []string{"lmsysorg/sglang:*"}}}, sidecar, false},
		{"every list must match", Filter{Include: Patterns{Images: []string{"lmsysorg/*"}, Containers: []string{"vllm-*"}}}, engine, false},
		{"exclude wins", Filter{Include: Patterns{Containers: []string{"*"}}, Exclude: Patterns{Containers: []string{"*-tp0"}}}, engine, false},
		{"namespace include", Filter{Include: Patterns{Namespaces: []string{"inference"}}}, pod, true},
		{"namespace exclude", Filter{Exclude: Patterns{Namespaces: []string{"kube-*"}}}, system, false},
		{"pod pattern", Filter{Include: Patterns{Pods: []string{"vllm-*"}}}, pod, true},
	} {
		if got := tc.f.Accept(tc.m); got != tc.want {
			t.Errorf("%s: Accept = %v, want %v", tc.name, got, tc.want)
		}
	}
}
