//go:build cgo && linux

package ingest

/*
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sdjournal.h"

// sw_file_pages is the process's resident file-backed (and shared) pages, from
// /proc/self/statm, kept open and read again from offset 0: cheap enough for every poll.
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

#define SW_TRIM_BYTES (4l << 20)

// sw_trim_due says whether the journal's mapped pages grew by SW_TRIM_BYTES since the last trim
// (libsystemd's windows overlap, and fault-around maps 64 KiB per fault: following 2,000
// lines/s mapped about 10 MB a second).
static int sw_trim_due(sw_trimmer *o) {
	long f = sw_file_pages(o);
	return f >= 0 && f - o->file_floor > SW_TRIM_BYTES / sysconf(_SC_PAGESIZE);
}

// sw_trim drops the pages of the journal files mapped into this process from its resident
// set (they stay in the page cache; touching them again is a minor fault). libsystemd maps
// journal files in 8 MiB windows and keeps up to 64 of them: following a busy journal, every
// page it read stayed in the daemon's RSS until the handle was recycled, 20-40 MB of a 67 MB
// peak in the live benchmark. It runs when following (before a wait), when sw_trim_due, on
// the owner thread between libsystemd calls, so nothing reads the mappings meanwhile;
// MADV_DONTNEED on a shared read-only file mapping only unmaps. The cost is the faults that
// map the pages again, dear on the benchmark's VM (shadow page tables): following 2,000
// lines/s, trimming at every 4 MiB took the daemon from 2.0-2.2 % to 2.8-2.9 % of a core and
// its VmHWM from 64 MB to 27 MB (bench/live_test.go, two runs each).
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

void sw_trim_before_wait(sw_trimmer *o, int mode) {
	if (mode > 0 || (mode == 0 && sw_trim_due(o))) {
		sw_trim();
		o->file_floor = sw_file_pages(o);
	}
}
*/
import "C"
