// Package rank splits an engine rank string into its parallel dimensions.
package rank

import "strings"

// Parallelism is a rank's place in each parallel dimension, as the labels dp, tp, pp, ep and
// attn_cp export it: the rank string packs them ("DP3 TP3 EP3"), and a query for "every TP0"
// or "DP rank 3 of each engine" should be a label match, not a regular expression on it.
// A dimension the engine does not print is empty.
type Parallelism struct {
	DP, TP, PP, EP, AttnCP string
}

// LabelNames are the labels Parallelism fills, in export order.
var LabelNames = [...]string{"dp", "tp", "pp", "ep", "attn_cp"}

// Split reads a rank as the parsers record it: SGLang's tags ("DP3 PP1 TP3 EP3",
// "ATTN_CP4 MOE_DP2 TP0"), or vLLM's "Engine 000", which is the engine's data-parallel index.
// Tags it does not know (MOE_DP, "gpu=0" of old SGLang builds, "2 Engines Aggregated") fill no
// dimension: the rank label keeps the whole string, so no two series share a label set. Indexes
// lose leading zeros, so "Engine 003" and /metrics' engine="3" give the same dp.
func Split(rank string) Parallelism {
	var p Parallelism
	if n, ok := strings.CutPrefix(rank, "Engine "); ok {
		if isDigits(n) {
			p.DP = trimZeros(n)
		}
		return p
	}
	for tag := range strings.FieldsSeq(rank) {
		i := len(tag)
		for i > 0 && tag[i-1] >= '0' && tag[i-1] <= '9' {
			i--
		}
		if i == len(tag) {
			continue
		}
		n := trimZeros(tag[i:])
		switch tag[:i] {
		case "DP":
			p.DP = n
		case "TP":
			p.TP = n
		case "PP":
			p.PP = n
		case "EP":
			p.EP = n
		case "ATTN_CP":
			p.AttnCP = n
		}
	}
	return p
}

// Value returns the dimension called name ("dp", "tp", "pp", "ep" or "attn_cp").
func (p Parallelism) Value(name string) string {
	switch name {
	case "dp":
		return p.DP
	case "tp":
		return p.TP
	case "pp":
		return p.PP
	case "ep":
		return p.EP
	case "attn_cp":
		return p.AttnCP
	}
	return ""
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func trimZeros(n string) string {
	t := strings.TrimLeft(n, "0")
	if t == "" {
		return "0"
	}
	return t
}
