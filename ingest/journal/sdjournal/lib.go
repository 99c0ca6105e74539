//go:build cgo && linux

package sdjournal

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <systemd/sd-journal.h>
#include "sdjournal.h"

// libsystemd's functions, resolved with dlopen so that a binary built here still starts (and
// falls back to journalctl) on a host without libsystemd.
static struct {
	int (*open)(sd_journal **, int);
	int (*open_directory)(sd_journal **, const char *, int);
	void (*close)(sd_journal *);
	int (*set_data_threshold)(sd_journal *, size_t);
	int (*add_match)(sd_journal *, const void *, size_t);
	int (*add_disjunction)(sd_journal *);
	int (*seek_cursor)(sd_journal *, const char *);
	int (*seek_realtime_usec)(sd_journal *, uint64_t);
	int (*seek_tail)(sd_journal *);
	int (*seek_head)(sd_journal *);
	int (*previous)(sd_journal *);
	int (*test_cursor)(sd_journal *, const char *);
	int (*wait)(sd_journal *, uint64_t);
	int (*next)(sd_journal *);
	void (*restart_data)(sd_journal *);
	int (*enumerate_data)(sd_journal *, const void **, size_t *);
	int (*get_realtime_usec)(sd_journal *, uint64_t *);
	int (*get_cursor)(sd_journal *, char **);
} sw;

static int sw_err = 0;
static pthread_once_t sw_once = PTHREAD_ONCE_INIT;

#define SW_SYM(f, name) if (!(sw.f = dlsym(h, name))) sw_err = -ENOSYS
static void sw_load(void) {
	void *h = dlopen("libsystemd.so.0", RTLD_NOW);
	if (!h) { sw_err = -ENOENT; return; }
	SW_SYM(open, "sd_journal_open");
	SW_SYM(open_directory, "sd_journal_open_directory");
	SW_SYM(close, "sd_journal_close");
	SW_SYM(set_data_threshold, "sd_journal_set_data_threshold");
	SW_SYM(add_match, "sd_journal_add_match");
	SW_SYM(add_disjunction, "sd_journal_add_disjunction");
	SW_SYM(seek_cursor, "sd_journal_seek_cursor");
	SW_SYM(seek_realtime_usec, "sd_journal_seek_realtime_usec");
	SW_SYM(seek_tail, "sd_journal_seek_tail");
	SW_SYM(seek_head, "sd_journal_seek_head");
	SW_SYM(previous, "sd_journal_previous");
	SW_SYM(test_cursor, "sd_journal_test_cursor");
	SW_SYM(wait, "sd_journal_wait");
	SW_SYM(next, "sd_journal_next");
	SW_SYM(restart_data, "sd_journal_restart_data");
	SW_SYM(enumerate_data, "sd_journal_enumerate_data");
	SW_SYM(get_realtime_usec, "sd_journal_get_realtime_usec");
	SW_SYM(get_cursor, "sd_journal_get_cursor");
}

int sw_init(void) {
	pthread_once(&sw_once, sw_load);
	return sw_err;
}

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

// sw_read advances when advance is set, then copies the entry: one pass over its fields with
// sd_journal_enumerate_data (sd_journal_get_data would rescan the entry for each field), the
// realtime stamp and, with cursor set, the cursor. It returns 1 with *e filled, 0 at the end
// of the journal, -ENOBUFS when buf is too small (e->need says how big it must be; the
// position is kept: call again with advance 0), or a negative errno.
static int sw_read(sd_journal *j, int advance, int cursor, char *buf, size_t cap, sw_entry *e) {
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
	if (cursor) {
		char *c = NULL;
		r = sw.get_cursor(j, &c);
		if (r < 0)
			return r;
		sw_put(e, SW_CURSOR, c, strlen(c), buf, cap);
		e->realtime = sw_realtime(c);
		free(c);
	}
	if (e->realtime == 0 && (r = sw.get_realtime_usec(j, &e->realtime)) < 0)
		return r;
	if (e->need > cap)
		return -ENOBUFS;
	return 1;
}

// sw_last_cursor gives es[n-1], the last entry read, its cursor (sparse batches). back says
// the handle has moved on to the next entry (to read it, which failed or did not fit): it
// steps back for the cursor and, with forth, returns to that entry. The cursor goes at the
// end of the used part of buf, for which sw_batch keeps SW_CURSOR_ROOM bytes.
#define SW_CURSOR_ROOM 512
static int sw_last_cursor(sd_journal *j, sw_req *q, size_t used, int back, int forth) {
	sw_entry *e = &q->es[q->n - 1];
	int r;
	if (back && (r = sw.previous(j)) <= 0)
		return r < 0 ? r : -EIO;
	char *c = NULL;
	if ((r = sw.get_cursor(j, &c)) < 0)
		return r;
	size_t l = strlen(c);
	if (used + l > q->cap) {
		free(c);
		return -ENOBUFS;
	}
	memcpy(q->buf + used, c, l);
	e->off[SW_CURSOR] = (uint32_t) used;
	e->len[SW_CURSOR] = (uint32_t) l;
	free(c);
	if (forth && (r = sw.next(j)) <= 0)
		return r < 0 ? r : -EIO;
	return 0;
}

// sw_batch reads up to q->max entries, offsets relative to q->buf; q->n is the number read.
// It returns 1 when it stopped at max or at the end of buf (then q->pending says the handle
// already sits on the next, unread entry), 0 at the end of the journal, -ENOBUFS when the
// first entry alone does not fit (es[0].need says what it needs), or the negative errno of
// the entry after the last one read.
//
// With q->sparse only the last entry read gets a Cursor: formatting one (asprintf of two ids
// and four numbers) is a tenth of the cost of reading an entry, and a read to the end needs
// cursors only where it may have to resume, after the last entry served. libsystemd keeps its
// position when sd_journal_next finds nothing or fails; when the entry after the last one was
// reached but could not be read or did not fit, the handle steps back for the cursor. A
// failure there is reported as the batch's error, after its entries: the reader then
// reopens at the previous batch's cursor and reads these entries again, so a sparse batch
// whose last cursor cannot be had is re-read, never skipped.
static int sw_batch(sd_journal *j, sw_req *q) {
	size_t used = 0;
	int advance = q->advance;
	size_t cap = q->sparse ? (q->cap > SW_CURSOR_ROOM ? q->cap - SW_CURSOR_ROOM : 0) : q->cap;
	q->n = q->pending = 0;
	int r = 1;
	for (int k = 0; k < q->max; k++) {
		sw_entry *e = &q->es[k];
		r = sw_read(j, advance, !q->sparse, q->buf + used, cap - used, e);
		advance = 1;
		if (r == -ENOBUFS && k > 0) {
			q->pending = 1;
			r = 1;
			break;
		}
		if (r != 1)
			break;
		for (int f = 0; f < SW_NFIELDS; f++)
			e->off[f] += (uint32_t) used;
		used += e->need;
		q->n++;
	}
	if (!q->sparse || q->n == 0)
		return r;
	// The handle sits on es[n-1] after a full batch, the end or a failed move; on the next
	// entry after a failed read of it or a buffer that filled up (pending).
	int moved = q->pending || (r < 0 && q->es[q->n].failed_at == 1);
	int cr = sw_last_cursor(j, q, used, moved, q->pending);
	if (cr < 0) {
		q->n = 0;  // served by nobody: re-read from the last cursor after the reopen
		q->pending = 0;
		q->es[0].failed_at = 0;
		return cr;
	}
	return r;
}

struct sw_owner {
	pthread_t th;
	sw_req *req;  // the one request, rewritten by Go before each kick
	int kick;     // eventfd: Go writes it to submit req (blocking reads here)
	int efd;      // eventfd: written here after each request (non-blocking, Go's netpoller)
	int tid;
	sd_journal *j;
	sw_trimmer trim;
};

// sw_open opens the handle with no size limit on returned fields (a data threshold of 0 is
// unlimited; the default 64 KiB would cut long messages).
static int sw_open(sw_owner *o, const char *dir) {
	sd_journal *j = NULL;
	int r = dir ? sw.open_directory(&j, dir, 0) : sw.open(&j, SD_JOURNAL_LOCAL_ONLY);
	if (r < 0)
		return r;
	if ((r = sw.set_data_threshold(j, 0)) < 0) {
		sw.close(j);
		return r;
	}
	o->j = j;
	return 0;
}

static int sw_exec(sw_owner *o, sw_req *q) {
	sd_journal *j = o->j;
	if (q->op == SW_OP_OPEN)
		return j ? -EBUSY : sw_open(o, q->s);
	if (q->op == SW_OP_QUIT && !j)
		return 0;
	if (!j)
		return -EBADF;
	switch (q->op) {
	case SW_OP_MATCH: return sw.add_match(j, q->s, q->slen);
	case SW_OP_DISJUNCTION: return sw.add_disjunction(j);
	case SW_OP_SEEK_CURSOR: return sw.seek_cursor(j, q->s);
	case SW_OP_SEEK_REALTIME: return sw.seek_realtime_usec(j, q->u);
	case SW_OP_SEEK_TAIL: return sw.seek_tail(j);
	case SW_OP_SEEK_HEAD: return sw.seek_head(j);
	case SW_OP_PREVIOUS: return sw.previous(j);
	case SW_OP_TEST_CURSOR: return sw.test_cursor(j, q->s);
	case SW_OP_WAIT: {
		// Reading right after the wait saves the caller a second request (and the thread a
		// second wake-up) per poll.
		sw_trim_before_wait(&o->trim, q->trim_after);
		int r = sw.wait(j, q->u);
		q->n = q->pending = 0;
		if (r >= 0 && q->max > 0)
			q->br = sw_batch(j, q);
		return r;
	}
	case SW_OP_BATCH: return sw_batch(j, q);
	case SW_OP_CLOSE:
	case SW_OP_QUIT:
		sw.close(j);
		o->j = NULL;
		return 0;
	}
	return -EINVAL;
}

// sw_main is the owner thread: it runs requests one at a time, in order. It blocks every
// signal, so that signals meant for the process reach Go's threads.
static void *sw_main(void *p) {
	sw_owner *o = p;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	__atomic_store_n(&o->tid, (int) syscall(SYS_gettid), __ATOMIC_RELEASE);
	for (;;) {
		uint64_t v;
		if (read(o->kick, &v, sizeof v) < 0)
			continue;  // EINTR; nothing else can fail on an open eventfd
		sw_req *q = o->req;
		int op = __atomic_load_n(&q->op, __ATOMIC_ACQUIRE);
		q->r = sw_exec(o, q);
		__atomic_store_n(&q->done, 1, __ATOMIC_RELEASE);
		uint64_t one = 1;
		while (write(o->efd, &one, sizeof one) < 0 && errno == EINTR)
			;
		if (op == SW_OP_QUIT)
			return NULL;
	}
}

sw_owner *sw_owner_new(sw_req *q, int *kick, int *efd, int *err) {
	sw_owner *o = calloc(1, sizeof *o);
	if (!o) {
		*err = -ENOMEM;
		return NULL;
	}
	o->req = q;
	o->trim.statm = -1;
	o->kick = eventfd(0, EFD_CLOEXEC);
	o->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	int r = o->kick < 0 || o->efd < 0 ? errno : pthread_create(&o->th, NULL, sw_main, o);
	if (r != 0) {
		*err = -r;
		if (o->kick >= 0) close(o->kick);
		if (o->efd >= 0) close(o->efd);
		free(o);
		return NULL;
	}
	*kick = o->kick;
	*efd = o->efd;
	return o;
}

int sw_owner_tid(sw_owner *o) { return __atomic_load_n(&o->tid, __ATOMIC_ACQUIRE); }

void sw_owner_free(sw_owner *o) {
	pthread_join(o->th, NULL);
	close(o->kick);
	if (o->trim.statm >= 0)
		close(o->trim.statm);
	free(o);  // efd belongs to Go's os.File, which closes it
}
*/
import "C"
