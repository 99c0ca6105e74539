package file

import "github.com/specwatch/specwatch/ingest"

// setUnit names a file's series: a container's lines go by the container's identity
// (container, and on Kubernetes namespace and pod), a plain file's by the path it was found
// at as its unit, so that two engines' files are two series.
func setUnit(t *tail) {
	if t.meta.Container == "" {
		t.unit = []byte(t.path)
	}
	t.container = []byte(t.meta.Container)
	t.namespace = []byte(t.meta.Namespace)
	t.pod = []byte(t.meta.Pod)
}

// fillContainer puts the file's container identity on its entry.
func fillContainer(e *ingest.Entry, t *tail) {
	e.Container, e.Namespace, e.Pod = t.container, t.namespace, t.pod
}
