package exporter

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/model"
)

// errLabel marks an invalid --push.label or PushOptions.ExtraLabels entry.
var errLabel = errors.New("invalid push label")

// ParsePushLabels turns --push.label values ("k=v", repeatable) into PushOptions.ExtraLabels;
// a repeated name is an error rather than a silent last-one-wins.
func ParsePushLabels(flags []string) (map[string]string, error) {
	out := make(map[string]string, len(flags))
	for _, f := range flags {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("--push.label %q: want name=value: %w", f, errLabel)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("--push.label %q: %s given twice: %w", f, k, errLabel)
		}
		out[k] = v
	}
	if _, err := labelPairs(out); err != nil {
		return nil, err
	}
	return out, nil
}

// labelPairs validates extra labels and returns them sorted by name. Names follow the classic
// Prometheus rule ([a-zA-Z_][a-zA-Z0-9_]*, no reserved "__" prefix) so that every receiver
// accepts them; values must be UTF-8.
func labelPairs(m map[string]string) ([]*dto.LabelPair, error) {
	out := make([]*dto.LabelPair, 0, len(m))
	for k, v := range m {
		if !model.LegacyValidation.IsValidLabelName(k) || strings.HasPrefix(k, "__") {
			return nil, fmt.Errorf("label name %q: %w", k, errLabel)
		}
		if !utf8.ValidString(v) {
			return nil, fmt.Errorf("label %s: value is not UTF-8: %w", k, errLabel)
		}
		out = append(out, &dto.LabelPair{Name: &k, Value: &v})
	}
	slices.SortFunc(out, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
	return out, nil
}

// addLabels adds the extra labels a metric lacks, keeping its own where both have one
// (Prometheus' external_labels rule). The pairs are shared read-only across metrics: mf is a
// fresh Gather result, used once.
func addLabels(mf *dto.MetricFamily, extra []*dto.LabelPair) {
	if len(extra) == 0 {
		return
	}
	for _, m := range mf.Metric {
		n := len(m.Label)
		for _, e := range extra {
			has := false
			for _, l := range m.Label[:n] {
				if l.GetName() == e.GetName() {
					has = true
					break
				}
			}
			if !has {
				m.Label = append(m.Label, e)
			}
		}
		if len(m.Label) > n {
			slices.SortFunc(m.Label, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
		}
	}
}
