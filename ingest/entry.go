// Package ingest turns log sources (files, stdin, journalctl output, the journal itself) into a
// stream of Entry values. Every source yields the same type so that parse and model never know
// where a line came from.
package ingest

import "github.com/specwatch/specwatch/sample"

// Entry is one log record as its source delivered it.
//
// The byte slices are owned by the reader and are valid only until the next call to Next: a
// consumer that keeps anything must copy it. This is what keeps the hot path free of allocation.
type Entry struct {
	// Time is the record's wall-clock time in Unix microseconds as the source stated it
	// (journald's __REALTIME_TIMESTAMP). Zero when the source has no timestamp of its own (raw
	// engine output, journalctl -o cat or short text); parse then takes the time from the line.
	Time int64
	// Arrival is when a live source read the record, in Unix microseconds (its injected
	// clock); zero when the source does not say (a file read to its end, the journal, whose
	// entries have Time). It places lines whose only stamp counts from the engine's start
	// (llama.cpp's "0.05.071.041") when Time is zero; it never replaces a stamp that is a date.
	Arrival int64
	// Host is _HOSTNAME; empty when unknown.
	Host []byte
	// Unit is _SYSTEMD_UNIT, or SYSLOG_IDENTIFIER when the entry has none (UnitOf); empty when
	// unknown.
	Unit []byte
	// Container, Namespace and Pod say which container wrote the record, where the source
	// knows: journald's CONTAINER_NAME (Docker's and Podman's journald driver), a json-file or
	// CRI log's path. They are part of the series key, so that two engines in two containers of
	// one host (all under docker.service) are two series, not one interleaved mess.
	Container []byte
	Namespace []byte // Kubernetes namespace; empty elsewhere
	Pod       []byte // Kubernetes pod name; empty elsewhere
	// Message is MESSAGE: arbitrary bytes, possibly with ANSI codes or invalid UTF-8.
	Message []byte
	// Cursor is the journal cursor (__CURSOR); empty for sources without one. Reading a
	// journal with NoFollow, the sdjournal backend sets it only on some entries (the last of
	// each batch it reads): formatting a cursor costs a tenth of reading an entry, and a read
	// to the end never saves its position.
	Cursor []byte
	// Sample, when set, is the entry: a sample its source already structured (an engine's
	// /metrics), applied as it is; the other fields are unused.
	Sample *sample.Sample
}

// Reset clears e for reuse while keeping nothing that points into a previous record.
func (e *Entry) Reset() { *e = Entry{} }

// UnitOf is a journal entry's unit: its _SYSTEMD_UNIT, or its SYSLOG_IDENTIFIER where the unit
// is absent or empty. Every journal backend and decoder names a unit by this one rule, so that
// a fallback from one backend to another never splits a series.
func UnitOf(unit, ident []byte) []byte {
	if len(unit) == 0 {
		return ident
	}
	return unit
}
