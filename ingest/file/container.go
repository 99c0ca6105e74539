package file

import "github.com/specwatch/specwatch/ingest"

// setUnit names a file's series: a container's lines go by the container's identity, a plain
// file's by the path it was found at, so that two engines' files are two series.
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
	// Until ingest.Entry carries the container, the container stands in for the unit.
	if len(t.unit) == 0 {
		e.Unit = t.container
	}
}
