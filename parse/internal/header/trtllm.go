package header

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/parse/internal/stamp"
)

// trtTags reads TensorRT-LLM's logger prefix at b[i] (a '['): Python logging's
// "[11/20/2026-09:00:01] " (format '[%(asctime)s] %(message)s', datefmt '%m/%d/%Y-%H:%M:%S'),
// then the tags Logger.log puts before every message, "[TRT-LLM] ", the rank ("[RANK 3] ",
// "[MPI_Rank 3] " in older builds, both only when the world has more than one rank) and the
// severity ("[I] ", "[W] ", "[E] ", "[V] ", "[F] "), the last two in either order
// (tensorrt_llm/logger.py). "[TRT-LLM]" is required: the date alone is any Python program's.
// Another tag ("[SpeculationGate] ") ends the walk and stays before the marker.
//
// The rank is the MPI world rank, the executor's global_rank. Rank 0 is recorded as no rank:
// it is the rank that speaks for the server (its /metrics carry no rank label, and a
// single-rank server's logger prints none), so its lines, its gate events and the scrape's
// readings key one series (docs/formats.md, "TensorRT-LLM iteration log").
func trtTags(b []byte, i int, s *Sink, t *stamp.Stamp) (int, bool) {
	j := i
	if k, ok := stamp.SlashAt(b, j+1, t); ok && k < len(b) && b[k] == ']' {
		j = skipBlanks(b, k+1)
	}
	if !bytes.HasPrefix(b[j:], []byte("[TRT-LLM]")) {
		return i, false
	}
	j = skipBlanks(b, j+len("[TRT-LLM]"))
	for range 2 {
		k, ok := trtRank(b, j, s)
		if !ok {
			k, ok = trtLevel(b, j)
		}
		if !ok {
			break
		}
		j = skipBlanks(b, k)
	}
	return j, true
}

// trtRank reads "[RANK 3]" or "[MPI_Rank 3]" at b[j:].
func trtRank(b []byte, j int, s *Sink) (int, bool) {
	var k int
	switch {
	case bytes.HasPrefix(b[j:], []byte("[RANK ")):
		k = j + len("[RANK ")
	case bytes.HasPrefix(b[j:], []byte("[MPI_Rank ")):
		k = j + len("[MPI_Rank ")
	default:
		return j, false
	}
	d := k
	for k < len(b) && lex.IsDigit(b[k]) {
		k++
	}
	if k == d || k-d > 6 || k >= len(b) || b[k] != ']' {
		return j, false
	}
	if rank := b[d:k]; !isZero(rank) {
		*s.Rank = rank
	}
	return k + 1, true
}

// isZero reports whether the digits d spell 0 ("0", "00").
func isZero(d []byte) bool {
	for _, c := range d {
		if c != '0' {
			return false
		}
	}
	return true
}

// trtLevel reads a severity tag, "[I]" and its peers, at b[j:].
func trtLevel(b []byte, j int) (int, bool) {
	if j+3 > len(b) || b[j] != '[' || b[j+2] != ']' {
		return j, false
	}
	switch b[j+1] {
	case 'I', 'W', 'E', 'V', 'F':
		return j + 3, true
	}
	return j, false
}

func skipBlanks(b []byte, j int) int {
	for j < len(b) && b[j] == ' ' {
		j++
	}
	return j
}
