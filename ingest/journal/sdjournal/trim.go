//go:build cgo && linux

package sdjournal

/*
#define _GNU_SOURCE // RUSAGE_THREAD
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include "sdjournal.h"

// sw_file_pages is the process's resident file-backed (and shared) pages, from
// /proc/self/statm, kept open and read again from offset 0.
static long sw_file_pages(sw_trimmer *o) {
	char buf[128];
	if (o->statm < 0 && (o->statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	ssize_t n = pread(o->statm, buf, sizeof buf - 1, 0);
	long size, resident, shared;
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return sscanf(buf, "%ld %ld %ld", &size, &resident, &shared) == 3 ? shared : -1;
}

// SW_CHECK_FAULTS is how many page faults of this thread may pass before statm is read again.
// Journal pages are mapped only by this thread's faults (every libsystemd call runs here), and
// one fault maps at most fault_around_bytes (64 KiB), so 16 faults map at most 1 MiB. Reading
// statm took 18 µs on the benchmark's VM; before every wait, 50 times a second, that was a
// twentieth of the thread's time; a getrusage is a plain system call.
#define SW_CHECK_FAULTS 16

// sw_trim_due says whether the journal's mapped pages grew by after bytes since the last trim
// (libsystemd's windows overlap, and fault-around maps 64 KiB per fault: following 2,000
// lines/s with trims every 4 MiB mapped about 10 MB a second, mostly pages mapped again).
static int sw_trim_due(sw_trimmer *o, long after) {
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		long faults = ru.ru_minflt + ru.ru_majflt;
		if (faults - o->faults < SW_CHECK_FAULTS)
			return 0;
		o->faults = faults;
	}
	long f = sw_file_pages(o);
	return f >= 0 && f - o->file_floor > after / sysconf(_SC_PAGESIZE);
}

// sw_trim drops the pages of the journal files mapped into this process from its resident
// set (they stay in the page cache; touching them again is a minor fault). libsystemd maps
// journal files in 8 MiB windows and keeps up to 64 of them: following a busy journal, every
// page it read stayed in the daemon's RSS until the handle was recycled, 20-40 MB of a 67 MB
// peak in the live benchmark. It runs when following (before a wait), when sw_trim_due, on
// the owner thread between libsystemd calls, so nothing reads the mappings meanwhile;
// MADV_DONTNEED on a shared read-only file mapping only unmaps.
//
// The cost is the faults that map pages again, about 40 µs each on the benchmark's VM (shadow
// page tables). They are not a small hot set that could be spared: journald stores a repeated
// field value once, so reading a repeated message (tracebacks, warnings) touches the page where
// it was first written, anywhere in the file; in 4 s of the live benchmark 176 different 64 KiB
// blocks were mapped again, most once or twice (sparing the pages of the last batch changed
// nothing). So the threshold trades RSS for CPU. Following 2,000 lines/s for 50 s, this
// thread's faults and CPU were: never 2.5k, 0.59 s; every 16 MiB 5.8k, 0.84 s; 8 MiB 7.5k,
// 0.88 s; 4 MiB 8.9k, 1.0 s (0.89 s with statm behind the fault count); 2 MiB 11k, 1.4 s.
static void sw_trim(void) {
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return;
	char line[8192];
	static const char *ends[] = {".journal", ".journal~", ".journal (deleted)", ".journal~ (deleted)"};
	while (fgets(line, sizeof line, f)) {
		size_t n = strlen(line);
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = 0;
		int journal = 0;
		for (size_t k = 0; k < sizeof ends / sizeof ends[0]; k++) {
			size_t l = strlen(ends[k]);
			journal |= n > l && strcmp(line + n - l, ends[k]) == 0;
		}
		unsigned long lo, hi;
		char perms[5];
		if (!journal || sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3 || perms[3] != 's')
			continue;
		madvise((void *) lo, hi - lo, MADV_DONTNEED);
	}
	fclose(f);
}

void sw_trim_before_wait(sw_trimmer *o, long after) {
	if (after < 0 || (after > 0 && sw_trim_due(o, after))) {
		sw_trim();
		o->file_floor = sw_file_pages(o);
	}
}
*/
import "C"
