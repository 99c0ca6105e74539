package sim

import "time"

// appendLine writes rec as the rank's engine would: logger prefix, then the message.
func (r *rankSim) appendLine(b []byte, rec *record, loc *time.Location) []byte {
	t := time.Unix(0, rec.t).In(loc)
	switch r.svc.Engine {
	case SGLang:
		b = r.appendSGLangPrefix(b, t, sglangModule(rec.kind))
		switch rec.kind {
		case LineDecode:
			return r.appendDecode(b, rec)
		case LinePrefill:
			return r.appendPrefill(b, rec)
		case LineRetract:
			return r.appendRetract(b, rec)
		case LineStartup:
			return r.appendStartup(b, rec)
		case LineProfile:
			return r.appendProfile(b, rec)
		}
		return r.appendCustom(b, rec)
	case VLLM:
		b = r.appendVLLMPrefix(b, t, "INFO", vllmFile(rec.kind, r.style == VLLMV0))
		if rec.kind == LineSpec {
			return r.appendSpec(b, rec)
		}
		return r.appendStats(b, rec)
	case Generic:
		return r.appendCustom(r.appendGenericPrefix(b, t), rec)
	}
	return r.appendLlama(b, rec)
}
