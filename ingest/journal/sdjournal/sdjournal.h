// The C side of the sdjournal backend, shared by the Go files that use it (journal_sdc.go
// defines what is declared here, journal_sdtrim.go the trim). See journal_sdown.go for why a
// C thread owns the handle.
#ifndef SPECWATCH_SDJOURNAL_H
#define SPECWATCH_SDJOURNAL_H

#include <stddef.h>
#include <stdint.h>

enum { SW_MESSAGE, SW_HOSTNAME, SW_UNIT, SW_IDENT, SW_CURSOR, SW_NFIELDS };

// One entry read by sw_batch: its fields are at off[f], len[f] in the request's buffer.
typedef struct {
	uint64_t realtime;
	uint32_t off[SW_NFIELDS], len[SW_NFIELDS];
	uint64_t need;  // bytes the entry needs in the buffer
	int failed_at;  // 0: sd_journal_next failed; 1: reading the entry's fields failed
} sw_entry;

// Operations the owner thread runs on its handle.
enum {
	SW_OP_OPEN,         // s: directory or NULL (the local journal); r: errno or 0
	SW_OP_MATCH,        // s, slen: "FIELD=value"
	SW_OP_DISJUNCTION,
	SW_OP_SEEK_CURSOR,  // s
	SW_OP_SEEK_REALTIME,// u: µs since the epoch
	SW_OP_SEEK_TAIL,
	SW_OP_SEEK_HEAD,
	SW_OP_PREVIOUS,     // r: 1 moved, 0 at the head, < 0 errno
	SW_OP_TEST_CURSOR,  // s; r: > 0 the handle sits on that entry
	SW_OP_WAIT,         // u: timeout µs; r: sd_journal_wait's; then, if max > 0 and the wait
	                    // did not fail, a batch as SW_OP_BATCH (br: its result)
	SW_OP_BATCH,        // see sw_batch
	SW_OP_CLOSE,        // closes the handle (the thread stays)
	SW_OP_QUIT,         // closes the handle if open and ends the thread
};

// A request to the owner thread. Go fills the inputs, kicks the thread and waits for done;
// the thread writes the outputs, then sets done, then signals the owner's eventfd.
typedef struct {
	int op;
	const char *s;
	size_t slen;
	uint64_t u;
	long trim_after;  // SW_OP_WAIT: see sw_trim_before_wait (set by Go's setTrimAfter, not per wait)
	// SW_OP_BATCH
	int advance, max;
	int sparse;  // format the cursor of the batch's last entry only (see sw_batch)
	char *buf;
	size_t cap;
	sw_entry *es;
	// outputs
	int r, n, pending;
	int br;  // SW_OP_WAIT: the batch's result
	int done;
} sw_req;

typedef struct sw_owner sw_owner;

// The owner thread's state for dropping the journal's pages from the RSS (journal_sdtrim.go).
typedef struct {
	long file_floor;  // file-backed resident pages after the last trim
	int statm;        // /proc/self/statm, or -1
	long faults;      // this thread's page faults when statm was read last
} sw_trimmer;

// sw_trim_before_wait drops the journal's pages once they grew by after bytes; never when after
// is 0; every time when it is negative (tests).
void sw_trim_before_wait(sw_trimmer *t, long after);

int sw_init(void);
// sw_owner_new starts the thread serving q: writing 1 to *kick (an eventfd) submits q, and
// the thread writes 1 to *efd (a non-blocking eventfd) after setting q->done.
sw_owner *sw_owner_new(sw_req *q, int *kick, int *efd, int *err);
int sw_owner_tid(sw_owner *o);
// sw_owner_free joins the thread (after SW_OP_QUIT completed) and frees o.
void sw_owner_free(sw_owner *o);

#endif
