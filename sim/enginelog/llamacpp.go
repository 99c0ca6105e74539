package enginelog

import "github.com/specwatch/specwatch/sim/internal/appendtext"

// appendLlama writes the message of one llama-server 0.7.0 line (tools/server's SLT_INF and
// SRV_INF, common/speculative's SPC_TRC); one request ends with
//
//	slot print_timing: id  0 | task 0 | prompt eval time =     109.15 ms /    21 tokens (    5.20 ms per token,   192.39 tokens per second)
//	slot print_timing: id  0 | task 0 |        eval time =     948.21 ms /   128 tokens (    7.47 ms per token,   133.94 tokens per second)
//	slot print_timing: id  0 | task 0 |       total time =    1057.37 ms /   149 tokens
//	slot print_timing: id  0 | task 0 |    graphs reused =         45
//	slot print_timing: id  0 | task 0 |   graph reallocs =          0    /     0        (same size) / (changed size)
//	slot print_timing: id  0 | task 0 | draft acceptance = 0.21180 (   79 accepted /   373 generated), mean len =  2.65
//	slot print_timing: id  0 | task 0 |      acc per pos = (0.667, 0.667, 0.312, 0.000, 0.000, 0.000, 0.000, 0.000)
//	spec common_specu: statistics     draft-simple: #calls(b,g,a) =    1     48     48, …
//	slot      release: id  0 | task 0 | stop processing: n_tokens = 148, truncated = 0
//
// The functions' names are cut or padded to 12 characters, right-aligned (%12.*s).
func (w *Writer) appendLlama(b []byte, rec *Record) []byte {
	switch rec.Kind {
	case LineStartup:
		b = append(b, "srv  llama_server: listening on "...)
		if w.Listen == "" {
			return append(b, "http://127.0.0.1:8080"...)
		}
		return append(b, w.Listen...)
	case LineSlot:
		switch rec.Sub {
		case 0:
			return append(appendSlot(b, "launch_slot_", rec), "processing task, is_child = 0"...)
		case 1:
			b = append(appendSlot(b, "     release", rec), "stop processing: n_tokens = "...)
			b = appendtext.Int(b, int64(rec.Prompt+rec.Cached+rec.Gen-1))
			return append(b, ", truncated = 0"...)
		}
		return append(b, "srv  update_slots: all slots are idle"...)
	case LineTiming:
		return appendTiming(appendSlot(b, "print_timing", rec), rec)
	case LineDraft:
		return appendAcceptance(appendSlot(b, "print_timing", rec), rec)
	case LinePositions:
		b = append(appendSlot(b, "print_timing", rec), "     acc per pos = ("...)
		return append(appendRates(b, &rec.Pos, w.DraftLen, rec.Drafts), ')')
	case LineStatistics:
		return w.appendStatistics(b, rec)
	}
	return b
}

// appendSlot writes "slot print_timing: id  0 | task 12 | ".
func appendSlot(b []byte, fn string, rec *Record) []byte {
	b = append(b, "slot "...)
	b = append(b, fn...)
	b = append(b, ": id "...)
	s := len(b)
	b = appendtext.PadLeft(appendtext.Int(b, int64(rec.Slot)), s, 2)
	b = append(b, " | task "...)
	b = appendtext.Int(b, int64(rec.Task))
	return append(b, " | "...)
}

func appendTiming(b []byte, rec *Record) []byte {
	switch rec.Sub {
	case 0:
		b = append(b, "prompt eval time = "...)
		return appendRate(b, rec.PromptMs, rec.Prompt, rec.Prompt)
	case 1:
		// The rates divide by the tokens after the first, which the prompt pass sampled.
		b = append(b, "       eval time = "...)
		return appendRate(b, rec.EvalMs, rec.Gen, rec.Gen-1)
	case 2:
		b = append(b, "      total time = "...)
		s := len(b)
		b = appendtext.PadLeft(appendtext.Fixed(b, rec.PromptMs+rec.EvalMs, 2), s, 10)
		b = append(b, " ms / "...)
		s = len(b)
		b = appendtext.PadLeft(appendtext.Int(b, int64(rec.Prompt+rec.Gen)), s, 5)
		return append(b, " tokens"...)
	case 3:
		b = append(b, "   graphs reused = "...)
		s := len(b)
		return appendtext.PadLeft(appendtext.Int(b, rec.Graphs), s, 10)
	}
	return append(b, "  graph reallocs =          0    /     0        (same size) / (changed size)"...)
}

// appendRate writes "%10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)",
// the rates over per tokens.
func appendRate(b []byte, ms float64, tokens, per int) []byte {
	s := len(b)
	b = appendtext.PadLeft(appendtext.Fixed(b, ms, 2), s, 10)
	b = append(b, " ms / "...)
	s = len(b)
	b = appendtext.PadLeft(appendtext.Int(b, int64(tokens)), s, 5)
	b = append(b, " tokens ("...)
	n := float64(max(per, 1))
	s = len(b)
	b = appendtext.PadLeft(appendtext.Fixed(b, ms/n, 2), s, 8)
	b = append(b, " ms per token, "...)
	s = len(b)
	b = appendtext.PadLeft(appendtext.Fixed(b, 1000*n/max(ms, 1e-9), 2), s, 8)
	return append(b, " tokens per second)"...)
}

// appendAcceptance writes "draft acceptance = %0.5f (%5d accepted / %5d generated), mean len =
// %5.2f": the mean is per drafting step, steps that drafted nothing left out. Renamed writes
// the fields as a format change would, keeping the marker.
func appendAcceptance(b []byte, rec *Record) []byte {
	rate, mean := 0.0, 1.0
	if rec.Drafted > 0 {
		rate = float64(rec.Accepted) / float64(rec.Drafted)
	}
	if rec.Drafts > 0 {
		mean = 1 + float64(rec.Accepted)/float64(rec.Drafts)
	}
	if rec.Renamed {
		b = append(b, "draft acceptance -> "...)
		b = appendtext.Fixed(b, rate, 5)
		b = append(b, " ["...)
		b = appendtext.Int(b, rec.Accepted)
		b = append(b, " acc. / "...)
		b = appendtext.Int(b, rec.Drafted)
		b = append(b, " gen.], mean len -> "...)
		return appendtext.Fixed(b, mean, 2)
	}
	b = append(b, "draft acceptance = "...)
	b = appendtext.Fixed(b, rate, 5)
	b = append(b, " ("...)
	s := len(b)
	b = appendtext.PadLeft(appendtext.Int(b, rec.Accepted), s, 5)
	b = append(b, " accepted / "...)
	s = len(b)
	b = appendtext.PadLeft(appendtext.Int(b, rec.Drafted), s, 5)
	b = append(b, " generated), mean len = "...)
	s = len(b)
	return appendtext.PadLeft(appendtext.Fixed(b, mean, 2), s, 5)
}

// appendRates writes n rates pos[i] / drafts as "%.3f" joined by ", ".
func appendRates(b []byte, pos *[MaxPositions]int32, n int, drafts int64) []byte {
	d := float64(max(drafts, 1))
	for i := range min(n, MaxPositions) {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendtext.Fixed(b, float64(pos[i])/d, 3)
	}
	return b
}
