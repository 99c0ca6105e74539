package ingest

// What a consumer handing entries on in batches needs to know about a Reader's input (the
// journalctl backend).

// Buffered is the number of bytes read from the source that Next has not consumed yet: zero
// means that the next Next reads from the source, and may block there.
func (r *Reader) Buffered() int { return r.w - r.r }

// Ended reports whether the source has ended or failed; Next returns that error once the data
// read before it is consumed. Right after an entry, true means the stream may have cut it
// short: an export entry is returned when its MESSAGE was whole, even if fields after it are
// missing.
func (r *Reader) Ended() bool { return r.err != nil }
