package config

import (
	"fmt"

	"github.com/specwatch/specwatch/ingest/fwdpass"
	"github.com/specwatch/specwatch/sample"
)

func (c *Config) validateForwardPass(bad func(key, format string, args ...any)) {
	seen := map[string]bool{}
	for i, f := range c.ForwardPass {
		key := fmt.Sprintf("forward_pass[%d]", i)
		if f.Engine != "vllm" && f.Engine != "sglang" {
			bad(key+".engine", "%q: want vllm or sglang (the engines that publish forward-pass metrics)", f.Engine)
		}
		ranks := f.Ranks
		if len(ranks) == 0 {
			ranks = []int{0}
		}
		for _, r := range ranks {
			if r < 0 {
				bad(key+".ranks", "%d: want 0 or more", r)
				continue
			}
			if err := fwdpass.CheckEndpoint(f.Endpoint, r); err != nil {
				bad(key+".endpoint", "%v", err)
				break
			}
			id := fmt.Sprintf("%s#%d", f.Endpoint, r)
			if seen[id] {
				bad(key+".ranks", "rank %d of %s listed twice", r, f.Endpoint)
			}
			seen[id] = true
		}
		for k := range f.Labels {
			switch k {
			case "host", "unit", "container", "namespace", "pod":
			default:
				bad(key+".labels."+k, "unknown label: want host, unit, container, namespace or pod")
			}
		}
		for _, n := range []struct {
			name string
			v    int
		}{{"dp_size", f.DPSize}, {"tp_size", f.TPSize}, {"pp_size", f.PPSize}, {"ep_size", f.EPSize}} {
			if n.v < 0 {
				bad(key+"."+n.name, "%d: want 1 or more (0: 1)", n.v)
			} else if n.v > 0 && f.Engine == "vllm" {
				bad(key+"."+n.name, "vLLM names its ranks by DP rank alone (Engine 000): the sizes are SGLang's")
			}
		}
	}
}

// ForwardPassEndpoints maps the `forward_pass:` list onto the source's endpoints. An SGLang
// entry without a dp_size takes its ranks' count (DP ranks beyond this node's: set dp_size).
func (c *Config) ForwardPassEndpoints() []fwdpass.Endpoint {
	var out []fwdpass.Endpoint
	for _, f := range c.ForwardPass {
		e := sample.EngineVLLM
		if f.Engine == "sglang" {
			e = sample.EngineSGLang
		}
		t := fwdpass.Topology{DPSize: f.DPSize, TPSize: f.TPSize, PPSize: f.PPSize, EPSize: f.EPSize, DPAttention: f.DPAttention}
		if t.DPSize == 0 {
			for _, r := range f.Ranks {
				t.DPSize = max(t.DPSize, r+1)
			}
		}
		out = append(out, fwdpass.Endpoint{Engine: e, Base: f.Endpoint, Ranks: f.Ranks, Labels: f.Labels, RankLabels: f.RankLabels, Topology: t})
	}
	return out
}
