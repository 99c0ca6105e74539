package llama

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
)

// The leads say where a record starts when its marker, the text parse finds, is inside it.

// SlotLead backs a "| task " marker at b[at:] up over the "id  0 " before it, where a slot
// line's record starts; without it the marker stays where it is (Slot then finds no id).
func SlotLead(b []byte, at int) int {
	i := at
	for i > 0 && b[i-1] == ' ' {
		i--
	}
	d := i
	for d > 0 && lex.IsDigit(b[d-1]) {
		d--
	}
	if d == i {
		return at
	}
	for d > 0 && b[d-1] == ' ' {
		d--
	}
	if d >= 2 && string(b[d-2:d]) == "id" {
		return d - 2
	}
	return at
}

// StatsLead backs a "#calls(b,g,a) = " marker up to the "statistics <name>: " before it.
func StatsLead(b []byte, at int) int {
	if i := bytes.LastIndex(b[:at], []byte("statistics ")); i >= 0 {
		return i
	}
	return at
}

// EvalLead backs an "eval time = " marker up over "prompt ". (llama_perf_context_print's lines,
// llama-cli's closing figures, read the same: parts of no request, which needs a slot line.)
func EvalLead(b []byte, at int) int {
	if at >= len("prompt ") && string(b[at-len("prompt "):at]) == "prompt " {
		return at - len("prompt ")
	}
	return at
}
