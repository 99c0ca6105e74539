package options

import (
	"testing"
	"time"
)

// Unset options take their defaults; set ones stay; a negative ExpireAfter (expiry off) stays
// off; the slow-drift test is fed samples in blocks of five windows.
func TestSetDefaults(t *testing.T) {
	var o Options
	o.SetDefaults()
	if o.MaxSeries != DefaultMaxSeries || o.Window != DefaultWindow || o.LongHalfLife != DefaultLongHalfLife ||
		o.ExpireAfter != DefaultExpireAfter || len(o.ForecastContexts) != 3 || o.SlowDrift.Block != 5*DefaultWindow ||
		o.SlowDrift.PerValue != 1 {
		t.Errorf("defaults: %+v", o)
	}
	o = Options{MaxSeries: 8, Window: 20, ExpireAfter: -1, ForecastContexts: []int{1000}}
	o.SetDefaults()
	if o.MaxSeries != 8 || o.Window != 20 || o.ExpireAfter != -1 || o.ForecastContexts[0] != 1000 || o.SlowDrift.Block != 100 ||
		o.StaleAfter != 5*time.Minute {
		t.Errorf("set options changed: %+v", o)
	}
}
