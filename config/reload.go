package config

import "reflect"

// RestartKeys names the keys whose change a reload cannot apply to a running daemon (the
// journal it reads, where it listens, where its cursor lives, how it pushes, the log format,
// the scrape targets, the forward-pass publishers, the zone of zone-less timestamps), so the operator is told which ones wait
// for the next restart. A reload applies the rest: log.level, aliases, rules, model (but
// model.warmup, used at start only). Empty when it applied
// everything.
func RestartKeys(old, cur Config) []string {
	var keys []string
	if !reflect.DeepEqual(old.Journal, cur.Journal) {
		keys = append(keys, "journal")
	}
	if old.Listen != cur.Listen {
		keys = append(keys, "listen")
	}
	if old.StateDir != cur.StateDir {
		keys = append(keys, "state_dir")
	}
	if old.Push.URL != cur.Push.URL {
		keys = append(keys, "push.url")
	}
	if old.Push.Interval != cur.Push.Interval {
		keys = append(keys, "push.interval")
	}
	if !reflect.DeepEqual(old.Push.Labels, cur.Push.Labels) {
		keys = append(keys, "push.labels")
	}
	if old.Log.Format != cur.Log.Format {
		keys = append(keys, "log.format")
	}
	if !reflect.DeepEqual(old.Scrape, cur.Scrape) {
		keys = append(keys, "scrape")
	}
	if !reflect.DeepEqual(old.ForwardPass, cur.ForwardPass) {
		keys = append(keys, "forward_pass")
	}
	for _, k := range []struct {
		name string
		same bool
	}{{"files", reflect.DeepEqual(old.Files, cur.Files)}, {"docker", reflect.DeepEqual(old.Docker, cur.Docker)},
		{"kubernetes", reflect.DeepEqual(old.Kubernetes, cur.Kubernetes)}, {"file_options", old.FileOptions == cur.FileOptions}} {
		if !k.same {
			keys = append(keys, k.name)
		}
	}
	if old.Timezone != cur.Timezone {
		keys = append(keys, "timezone")
	}
	if old.Model.Warmup != cur.Model.Warmup {
		keys = append(keys, "model.warmup") // read only when the daemon starts
	}
	if old.Model.Snapshot != cur.Model.Snapshot {
		keys = append(keys, "model.snapshot")
	}
	return keys
}
