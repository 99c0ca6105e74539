package sim

// appendLlama writes one line of llama-server's print_timing block. The server prints the block
// with embedded newlines; journald and docker store each line separately, and so do we:
//
//	slot print_timing: id  0 | task 12 |
//	prompt eval time =     55.65 ms /   813 tokens (    0.07 ms per token, 14609.16 tokens per second)
//	       eval time =  10834.33 ms /  1000 tokens (   10.83 ms per token,    92.30 tokens per second)
//	      total time =  10889.98 ms /  1813 tokens
//	slot print_timing: id  0 | task 12 |
//	draft acceptance rate = 0.58824 (  600 accepted /  1020 generated)
func (r *rankSim) appendLlama(b []byte, rec *record) []byte {
	switch rec.sub {
	case 0, 4:
		b = append(b, "slot print_timing: id "...)
		s := len(b)
		b = padLeft(appendInt(b, int64(rec.slot)), s, 2)
		b = append(b, " | task "...)
		b = appendInt(b, int64(rec.task))
		return append(b, " | "...)
	case 1:
		b = append(b, "prompt eval time = "...)
		return appendRate(b, rec.promptMs, rec.prompt)
	case 2:
		b = append(b, "       eval time = "...)
		return appendRate(b, rec.evalMs, rec.gen)
	case 3:
		b = append(b, "      total time = "...)
		s := len(b)
		b = padLeft(appendFixed(b, rec.promptMs+rec.evalMs, 2), s, 10)
		b = append(b, " ms / "...)
		s = len(b)
		b = padLeft(appendInt(b, int64(rec.prompt+rec.gen)), s, 5)
		return append(b, " tokens"...)
	}
	rate := 0.0
	if rec.drafts2 > 0 {
		rate = float64(rec.accepted) / float64(rec.drafts2)
	}
	if rec.format {
		b = append(b, "draft acceptance rate -> "...)
		b = appendFixed(b, rate, 5)
		b = append(b, " ["...)
		b = appendInt(b, rec.accepted)
		b = append(b, " acc. / "...)
		b = appendInt(b, rec.drafts2)
		return append(b, " gen.]"...)
	}
	b = append(b, "draft acceptance rate = "...)
	b = appendFixed(b, rate, 5)
	b = append(b, " ("...)
	s := len(b)
	b = padLeft(appendInt(b, rec.accepted), s, 5)
	b = append(b, " accepted / "...)
	s = len(b)
	b = padLeft(appendInt(b, rec.drafts2), s, 5)
	return append(b, " generated)"...)
}

// appendRate writes "%10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)".
func appendRate(b []byte, ms float64, tokens int) []byte {
	s := len(b)
	b = padLeft(appendFixed(b, ms, 2), s, 10)
	b = append(b, " ms / "...)
	s = len(b)
	b = padLeft(appendInt(b, int64(tokens)), s, 5)
	b = append(b, " tokens ("...)
	n := float64(max(tokens, 1))
	s = len(b)
	b = padLeft(appendFixed(b, ms/n, 2), s, 8)
	b = append(b, " ms per token, "...)
	s = len(b)
	b = padLeft(appendFixed(b, 1000*n/max(ms, 1e-9), 2), s, 8)
	return append(b, " tokens per second)"...)
}
