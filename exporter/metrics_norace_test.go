//go:build !race

package exporter

const raceEnabled = false
