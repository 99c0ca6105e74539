package model

import "github.com/specwatch/specwatch/model/schema"

// ForgetCounts zeroes what the exporter serves as counters — the input accounting, the series
// cap's drops, and each series' samples by kind and anomaly raises — and keeps everything
// else. A warm restart calls it after rebuilding the model from the lines before the saved
// position: the previous process counted those lines already, so the new process's
// `_total` counters start at zero and count only what it reads live, while baselines, fits,
// detectors and open episodes continue. Series keep their IDs, so the exporter's label caches
// and the step histogram stay aligned.
func (m *Set) ForgetCounts() {
	m.input = InputCounts{}
	m.overflow = 0
	for _, se := range m.order {
		se.kindCount = [schema.NumSampleKinds]int64{}
		se.raised = [NumAnomalyKinds]int64{}
		se.committed.tokens, se.committed.steps = 0, 0 // still exported: rate() sees a reset
	}
}
