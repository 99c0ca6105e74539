package events

import (
	"testing"
	"time"

	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/sample"
)

// A restart seen by the log and then by the counters within quiet is one; speculation
// switches between them do not split it; the list keeps the latest Max.
func TestRestartsAndSwitches(t *testing.T) {
	var l List
	const quiet = int64(time.Minute)
	l.Restart(0, sample.SourceLog, quiet)
	l.Add("speculation", int64(time.Second), schema.Ev(schema.CodeSpecOffBatch, 12, 4))
	l.Restart(int64(10*time.Second), sample.SourceMetrics, quiet)
	if n, _, by := l.Restarts(); n != 1 || by != schema.CodeRestartLogged {
		t.Errorf("%d restarts (seen by %d), want the one the log saw", n, by)
	}
	for i := range Max {
		l.Add("speculation", int64(i+2)*int64(time.Minute), schema.Ev(schema.CodeSpecOn, 4, 12))
	}
	r := l.Report()
	if len(r) != Max || r[0].Evidence.Code != schema.CodeSpecOn {
		t.Errorf("%d events, first %+v", len(r), r[0])
	}
	if n, last, _ := l.Restarts(); n != 1 || !last.Equal(time.Unix(0, 0).UTC()) {
		t.Errorf("restarts %d at %v after the list rolled over", n, last)
	}
}
