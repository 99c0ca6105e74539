package pipeline

import (
	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/sample"
)

// identity is ingest.Identity as the bytes a sample's key holds.
type identity struct{ host, unit, container, namespace, pod []byte }

// Identify names the series of the entries applied from now on where neither their line nor
// their entry names them: two inputs whose lines name no host (two hosts' raw logs) stay two
// series. A journal entry's own host and unit still win (parse.Stream.Resolve).
func (p *Pipeline) Identify(id ingest.Identity) {
	p.id = identity{[]byte(id.Host), []byte(id.Unit), []byte(id.Container), []byte(id.Namespace), []byte(id.Pod)}
}

func (p *Pipeline) identify(s *sample.Sample) {
	fill := func(dst *[]byte, v []byte) {
		if len(*dst) == 0 && len(v) > 0 {
			*dst = v
		}
	}
	fill(&s.Host, p.id.host)
	fill(&s.Unit, p.id.unit)
	fill(&s.Container, p.id.container)
	fill(&s.Namespace, p.id.namespace)
	fill(&s.Pod, p.id.pod)
}
