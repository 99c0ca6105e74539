package config

import "reflect"

// RestartKeys names the top-level keys whose change a reload cannot apply to a running daemon
// (the journal it reads, where it listens, where its cursor lives, where it pushes), so the
// operator is told which ones wait for the next restart. Empty when everything applied.
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
	return keys
}
