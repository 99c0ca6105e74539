//go:build cgo && linux

package ingest

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-journal.h>

// The read path in one C call per entry: sd_journal_next, one pass over the entry's fields
// with sd_journal_enumerate_data (sd_journal_get_data would rescan the entry for each
// field), the realtime stamp and the cursor, copied into a buffer the caller owns. Symbols
// are resolved with dlopen, as go-systemd does, so a binary built here still starts (and
// falls back to journalctl) on a host without libsystemd.

typedef struct {
	int (*next)(sd_journal *);
	void (*restart_data)(sd_journal *);
	int (*enumerate_data)(sd_journal *, const void **, size_t *);
	int (*get_realtime_usec)(sd_journal *, uint64_t *);
	int (*get_cursor)(sd_journal *, char **);
} sw_fns;

static sw_fns sw;
static int sw_err = 0;
static pthread_once_t sw_once = PTHREAD_ONCE_INIT;

static void sw_load(void) {
	void *h = dlopen("libsystemd.so.0", RTLD_NOW);
	if (!h) { sw_err = -ENOENT; return; }
	sw.next = dlsym(h, "sd_journal_next");
	sw.restart_data = dlsym(h, "sd_journal_restart_data");
	sw.enumerate_data = dlsym(h, "sd_journal_enumerate_data");
	sw.get_realtime_usec = dlsym(h, "sd_journal_get_realtime_usec");
	sw.get_cursor = dlsym(h, "sd_journal_get_cursor");
	if (!sw.next || !sw.restart_data || !sw.enumerate_data || !sw.get_realtime_usec || !sw.get_cursor)
		sw_err = -ENOSYS;
}

static int sw_init(void) {
	pthread_once(&sw_once, sw_load);
	return sw_err;
}

enum { SW_MESSAGE, SW_HOSTNAME, SW_UNIT, SW_IDENT, SW_CURSOR, SW_NFIELDS };

typedef struct {
	uint64_t realtime;
	uint32_t off[SW_NFIELDS], len[SW_NFIELDS];
	uint64_t need;  // bytes the entry needs in buf
	int failed_at;  // 0: sd_journal_next failed; 1: reading the entry's fields failed
} sw_entry;

static const char *sw_names[SW_IDENT + 1] = {"MESSAGE=", "_HOSTNAME=", "_SYSTEMD_UNIT=", "SYSLOG_IDENTIFIER="};
static const size_t sw_lens[SW_IDENT + 1] = {8, 10, 14, 18};

// sw_field tells which wanted field a "NAME=value" item is, or -1; the first byte settles
// most items without a memcmp.
static int sw_field(const char *p, size_t l) {
	int f;
	switch (p[0]) {
	case 'M': f = SW_MESSAGE; break;
	case 'S': f = SW_IDENT; break;
	case '_':
		if (l > 2 && p[2] == 'O') f = SW_HOSTNAME;
		else if (l > 2 && p[2] == 'Y') f = SW_UNIT;
		else return -1;
		break;
	default: return -1;
	}
	return l >= sw_lens[f] && memcmp(p, sw_names[f], sw_lens[f]) == 0 ? f : -1;
}

static void sw_put(sw_entry *e, int f, const char *p, size_t n, char *buf, size_t cap) {
	e->off[f] = (uint32_t) e->need;
	e->len[f] = (uint32_t) n;
	if (e->need + n <= cap)
		memcpy(buf + e->need, p, n);
	e->need += n;
}

// sw_realtime reads the realtime stamp out of a cursor (";t=<hex>;"), which saves a call:
// the cursor is formatted anyway. 0 if absent.
static uint64_t sw_realtime(const char *c) {
	const char *t = strstr(c, ";t=");
	uint64_t v = 0;
	if (!t)
		return 0;
	for (t += 3; *t && *t != ';'; t++) {
		char ch = *t;
		int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
		if (d < 0)
			return 0;
		v = v << 4 | (uint64_t) d;
	}
	return v;
}

// sw_read advances when advance is set, then copies the entry. It returns 1 with *e filled,
// 0 at the end of the journal, -ENOBUFS when buf is too small (e->need says how big it must
// be; the position is kept: call again with advance 0), or a negative errno.
static int sw_read(void *jp, int advance, char *buf, size_t cap, sw_entry *e) {
	sd_journal *j = jp;
	int r;
	memset(e, 0, sizeof *e);
	if (advance) {
		r = sw.next(j);
		if (r <= 0)
			return r;
	}
	e->failed_at = 1;
	const void *d;
	size_t l;
	unsigned have = 0;
	sw.restart_data(j);
	while ((r = sw.enumerate_data(j, &d, &l)) > 0) {
		const char *p = d;
		int f = l > 0 ? sw_field(p, l) : -1;
		if (f >= 0 && !(have & (1u << f))) {
			sw_put(e, f, p + sw_lens[f], l - sw_lens[f], buf, cap);  // the first of a repeated field wins
			have |= 1u << f;
		}
	}
	if (r < 0)
		return r;
	char *c = NULL;
	r = sw.get_cursor(j, &c);
	if (r < 0)
		return r;
	sw_put(e, SW_CURSOR, c, strlen(c), buf, cap);
	e->realtime = sw_realtime(c);
	free(c);
	if (e->realtime == 0 && (r = sw.get_realtime_usec(j, &e->realtime)) < 0)
		return r;
	if (e->need > cap)
		return -ENOBUFS;
	return 1;
}

// sw_batch reads up to max entries in one call (one cgo crossing for many entries), e[k]'s
// offsets relative to buf. *n is the number read. It returns 1 when it stopped at max or at
// the end of buf (then *pending says the handle already sits on the next, unread entry),
// 0 at the end of the journal, -ENOBUFS when the first entry alone does not fit (es[0].need
// says what it needs), or the negative errno of the entry after the last one read.
static int sw_batch(void *jp, int advance, char *buf, size_t cap, sw_entry *es, int max, int *n, int *pending) {
	size_t used = 0;
	*n = 0;
	*pending = 0;
	for (int k = 0; k < max; k++) {
		sw_entry *e = &es[k];
		int r = sw_read(jp, advance, buf + used, cap - used, e);
		advance = 1;
		if (r == -ENOBUFS && k > 0) {
			*pending = 1;
			return 1;
		}
		if (r != 1)
			return r;
		for (int f = 0; f < SW_NFIELDS; f++)
			e->off[f] += (uint32_t) used;
		used += e->need;
		(*n)++;
	}
	return 1;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"syscall"
	"unsafe"

	"github.com/coreos/go-systemd/v22/sdjournal"
)

// errFieldRead marks a failure to read an entry the journal did move to: the entry is
// damaged, not the handle (see sdSource.step).
var errFieldRead = errors.New("reading entry")

// sdLibError reports why the C read path cannot be used, or nil.
func sdLibError() error {
	if r := C.sw_init(); r < 0 {
		return fmt.Errorf("libsystemd.so.0 not usable: %w", syscall.Errno(-r))
	}
	return nil
}

// rawHandle returns the sd_journal pointer inside go-systemd's Journal, for the one-call read
// path. go-systemd keeps it unexported (field cjournal, of cgo type
// _Ctype_struct_sd_journal); reflect reads it without writing anything. If a go-systemd release renames or retypes the field, this returns nil and the
// source falls back to go-systemd's own (slower) getters; TestSDJournalFastPath catches that.
func rawHandle(j *sdjournal.Journal) unsafe.Pointer {
	v := reflect.ValueOf(j).Elem()
	f := v.FieldByName("cjournal")
	if !f.IsValid() || f.Kind() != reflect.Pointer || !strings.HasSuffix(f.Type().Elem().Name(), "sd_journal") {
		return nil
	}
	return f.UnsafePointer()
}

// sdBatchMax bounds the entries read per C call: enough to make the crossing negligible.
const sdBatchMax = 64

// sdBatch holds entries read ahead by sw_batch; they live in sdSource.buf. The zero value
// is an empty batch.
type sdBatch struct {
	ents    [sdBatchMax]C.sw_entry
	n, pos  int
	stop    C.int // when the batch was cut short: 0 end of journal, < 0 the next entry's error
	stopped bool  // stop is set: report it once the batch is served
	failAt  C.int // for an error: 0 moving to the entry failed, 1 reading it
	pending bool  // the handle sits on an entry not read yet
}

// readFast returns the next entry, from the batch or by reading a new one, its slices
// pointing into s.buf; false at the end of the journal. An error is reported after the
// entries read before it. With a resume pending (TestCursor must see the handle on the
// entry) or faults injected, batches hold one entry.
func (s *sdSource) readFast(e *Entry) (bool, error) {
	b := &s.batch
	if b.pos == b.n && b.stopped {
		stop, failAt := b.stop, b.failAt
		*b = sdBatch{}
		switch {
		case stop == 0:
			return false, nil
		case failAt == 0:
			return false, fmt.Errorf("moving to the next entry: %w", syscall.Errno(-stop))
		}
		return false, fmt.Errorf("%w: %w", errFieldRead, syscall.Errno(-stop))
	}
	if b.pos == b.n {
		max := sdBatchMax
		if s.resume.pending() || s.fault != nil {
			max = 1
		}
		var n, pending C.int
		r := C.sw_batch(s.raw, boolInt(!b.pending), (*C.char)(unsafe.Pointer(unsafe.SliceData(s.buf))), C.size_t(len(s.buf)),
			&b.ents[0], C.int(max), &n, &pending)
		if r == -C.ENOBUFS { // the next entry alone is larger than buf: grow, read it again
			s.buf = make([]byte, int(b.ents[0].need)+int(b.ents[0].need)/4)
			b.pending = true
			return s.readFast(e)
		}
		b.n, b.pos, b.pending = int(n), 0, pending != 0
		if r != 1 {
			b.stop, b.stopped, b.failAt = r, true, b.ents[min(int(n), sdBatchMax-1)].failed_at
		}
		if b.n == 0 {
			return s.readFast(e) // reports the end or the error
		}
	}
	ce := &b.ents[b.pos]
	b.pos++
	f := func(i int) []byte {
		off, n := int(ce.off[i]), int(ce.len[i])
		return s.buf[off : off+n : off+n]
	}
	*e = Entry{Time: int64(ce.realtime), Host: f(C.SW_HOSTNAME), Unit: f(C.SW_UNIT), Message: f(C.SW_MESSAGE), Cursor: f(C.SW_CURSOR)}
	if len(e.Unit) == 0 {
		e.Unit = f(C.SW_IDENT)
	}
	return true, nil
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
