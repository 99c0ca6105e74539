package enginelog

import "github.com/specwatch/specwatch/sim/internal/appendtext"

// appendLlama writes one line of llama-server's print_timing block. The server prints the block
// with embedded newlines; journald and docker store each line separately, and so do we:
//
//	slot print_timing: id  0 | task 12 |
//	prompt eval time =     55.65 ms /   813 tokens (    0.07 ms per token, 14609.16 tokens per second)
//	       eval time =  10834.33 ms /  1000 tokens (   10.83 ms per token,    92.30 tokens per second)
//	      total time =  10889.98 ms /  1813 tokens
//	slot print_timing: id  0 | task 12 |
//	draft acceptance rate = 0.58824 (  600 accepted /  1020 generated)
func (w *Writer) appendLlama(b []byte, rec *Record) []byte {
	switch rec.Sub {
	case 0, 4:
		b = append(b, "slot print_timing: id "...)
		s := len(b)
		b = appendtext.PadLeft(appendtext.Int(b, int64(rec.Slot)), s, 2)
		b = append(b, " | task "...)
		b = appendtext.Int(b, int64(rec.Task))
		return append(b, " | "...)
	case 1:
		b = append(b, "prompt eval time = "...)
		return appendRate(b, rec.PromptMs, rec.Prompt)
	case 2:
		b = append(b, "       eval time = "...)
		return appendRate(b, rec.EvalMs, rec.Gen)
	case 3:
		b = append(b, "      total time = "...)
		s := len(b)
		b = appendtext.PadLeft(appendtext.Fixed(b, rec.PromptMs+rec.EvalMs, 2), s, 10)
		b = append(b, " ms / "...)
		s = len(b)
		b = appendtext.PadLeft(appendtext.Int(b, int64(rec.Prompt+rec.Gen)), s, 5)
		return append(b, " tokens"...)
	}
	rate := 0.0
	if rec.Drafted > 0 {
		rate = float64(rec.Accepted) / float64(rec.Drafted)
	}
	if rec.Renamed {
		b = append(b, "draft acceptance rate -> "...)
		b = appendtext.Fixed(b, rate, 5)
		b = append(b, " ["...)
		b = appendtext.Int(b, rec.Accepted)
		b = append(b, " acc. / "...)
		b = appendtext.Int(b, rec.Drafted)
		return append(b, " gen.]"...)
	}
	b = append(b, "draft acceptance rate = "...)
	b = appendtext.Fixed(b, rate, 5)
	b = append(b, " ("...)
	s := len(b)
	b = appendtext.PadLeft(appendtext.Int(b, rec.Accepted), s, 5)
	b = append(b, " accepted / "...)
	s = len(b)
	b = appendtext.PadLeft(appendtext.Int(b, rec.Drafted), s, 5)
	return append(b, " generated)"...)
}

// appendRate writes "%10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)".
func appendRate(b []byte, ms float64, tokens int) []byte {
	s := len(b)
	b = appendtext.PadLeft(appendtext.Fixed(b, ms, 2), s, 10)
	b = append(b, " ms / "...)
	s = len(b)
	b = appendtext.PadLeft(appendtext.Int(b, int64(tokens)), s, 5)
	b = append(b, " tokens ("...)
	n := float64(max(tokens, 1))
	s = len(b)
	b = appendtext.PadLeft(appendtext.Fixed(b, ms/n, 2), s, 8)
	b = append(b, " ms per token, "...)
	s = len(b)
	b = appendtext.PadLeft(appendtext.Fixed(b, 1000*n/max(ms, 1e-9), 2), s, 8)
	return append(b, " tokens per second)"...)
}
