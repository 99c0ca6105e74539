package sim

import (
	"fmt"

	"github.com/specwatch/specwatch/sim/enginelog"
	"github.com/specwatch/specwatch/sim/internal/transport"
)

// The output shapes are defined where records are framed (internal/transport), the engines,
// line styles, prefixes and line kinds where lines are written (enginelog). They are re-exported
// here so that a Scenario is spelled with one package; the constants' meanings are documented
// at their definitions.

// Format is the transport that carries the engines' lines to the reader.
type Format = transport.Format

// Formats, named as journalctl's -o values where they are journalctl's.
const (
	FormatRaw              = transport.FormatRaw
	FormatCat              = transport.FormatCat
	FormatDocker           = transport.FormatDocker
	FormatDockerTimestamps = transport.FormatDockerTimestamps
	FormatShort            = transport.FormatShort
	FormatShortISO         = transport.FormatShortISO
	FormatShortPrecise     = transport.FormatShortPrecise
	FormatJSON             = transport.FormatJSON
	FormatExport           = transport.FormatExport
)

// ParseFormat is the inverse of Format.String, for command-line flags.
func ParseFormat(name string) (Format, error) {
	if f, ok := transport.Lookup(name); ok {
		return f, nil
	}
	return 0, fmt.Errorf("sim: unknown format %q", name)
}

// Formats lists every format, for tests and help texts.
func Formats() []Format { return transport.Formats() }

// Engine names the software that writes a series' lines.
type Engine = enginelog.Engine

// Engines the generator can imitate.
const (
	SGLang   = enginelog.SGLang
	VLLM     = enginelog.VLLM
	LlamaCpp = enginelog.LlamaCpp
	Generic  = enginelog.Generic
	TRTLLM   = enginelog.TRTLLM
)

// Style is a generation of an engine's line shapes.
type Style = enginelog.Style

// Styles. StyleDefault is each engine's current generation.
const (
	StyleDefault    = enginelog.StyleDefault
	SGLangOld       = enginelog.SGLangOld
	SGLangCurrent   = enginelog.SGLangCurrent
	SGLangIteration = enginelog.SGLangIteration
	SGLangHybridSWA = enginelog.SGLangHybridSWA
	SGLangDisagg    = enginelog.SGLangDisagg
	VLLMSpecGen1    = enginelog.VLLMSpecGen1
	VLLMSpecGen2    = enginelog.VLLMSpecGen2
	VLLMSpecGen3    = enginelog.VLLMSpecGen3
	VLLMV0          = enginelog.VLLMV0
	GenericComma    = enginelog.GenericComma
	GenericSpace    = enginelog.GenericSpace
	TRTLLMCurrent   = enginelog.TRTLLMCurrent
	TRTLLMHost      = enginelog.TRTLLMHost
	TRTLLMElapsed   = enginelog.TRTLLMElapsed
)

// Prefix is the engine logger's layout in front of the message.
type Prefix = enginelog.Prefix

// Prefix layouts.
const (
	PrefixEngine   = enginelog.PrefixEngine
	PrefixMillis   = enginelog.PrefixMillis
	PrefixTimeOnly = enginelog.PrefixTimeOnly
	PrefixPython   = enginelog.PrefixPython
	PrefixBare     = enginelog.PrefixBare
)

// LineKind is the shape of an engine line.
type LineKind = enginelog.LineKind

// Engine line kinds.
const (
	LineDecode   = enginelog.LineDecode
	LinePrefill  = enginelog.LinePrefill
	LineRetract  = enginelog.LineRetract
	LineStartup  = enginelog.LineStartup
	LineProfile  = enginelog.LineProfile
	LineCustom   = enginelog.LineCustom
	LineStats    = enginelog.LineStats
	LineSpec     = enginelog.LineSpec
	LineTiming   = enginelog.LineTiming
	LineDraft    = enginelog.LineDraft
	LineAdaptive = enginelog.LineAdaptive // SGLang adaptive speculation switching its steps
	// llama.cpp's slot lines (launched, released, all idle), acc per pos and statistics.
	LineSlot       = enginelog.LineSlot
	LinePositions  = enginelog.LinePositions
	LineStatistics = enginelog.LineStatistics
	// TensorRT-LLM's iteration line and SpeculationGate switch.
	LineIteration = enginelog.LineIteration
	LineGate      = enginelog.LineGate
)
