//go:build !race

package exportertest

const RaceEnabled = false
