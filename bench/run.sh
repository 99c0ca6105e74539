#!/usr/bin/env bash
# Side-by-side benchmark: specwatch vs mtail and journalctl on the same 1M-record sim.Mixed
# corpus (text file and real journal file). Usage, from anywhere:
#
#   bench/run.sh                 # RUNS=5 LINES=1000000 TEXT=1 LIVE=1 LIVE_RUNS=3 LIVE_CONFIGS="default sdjournal" BENCH_DIR=/tmp/specwatch-bench
#
# Everything it builds, downloads or generates lives in $BENCH_DIR (the corpus is cached there).
# It first checks that specwatch and mtail agree (samples and last commit length per series)
# and refuses to time anything if they do not. Prints a markdown table (also saved to
# $BENCH_DIR/results.md).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=${BENCH_DIR:-/tmp/specwatch-bench}
RUNS=${RUNS:-5}
LINES=${LINES:-1000000}
UNIT=sglang.service
mkdir -p "$W"
cd "$ROOT"

# --- tools -----------------------------------------------------------------------------------
need_apt() { apt-get install -y -qq "$@" >/dev/null; }
[ -x /usr/bin/time ] || need_apt time
[ -x /lib/systemd/systemd-journal-remote ] || need_apt systemd-journal-remote
MTAIL=$W/mtail-root/usr/bin/mtail
if [ ! -x "$MTAIL" ]; then
	(cd "$W" && apt-get download mtail && dpkg-deb -x mtail_*.deb mtail-root)
fi
SW=$W/specwatch
go build -o "$SW" ./cmd/specwatch
PROGS=$ROOT/bench/mtail
MT="$MTAIL --one_shot --one_shot_format=prometheus --progs $PROGS --logtostderr"

# --- corpus (cached) ---------------------------------------------------------------------------
C=$W/corpus-$LINES
if [ ! -f "$C/summary.txt" ]; then
	go run ./bench/cmd/corpus -lines "$LINES" -out "$C"
	# the journal must hold exactly the text file's entries
	TZ=UTC journalctl -D "$C/journal" -o short | grep -v '^-- Boot ' | cmp - "$C/mixed.log"
	journalctl -D "$C/journal" -u $UNIT -o cat | wc -l > "$C/unit-entries"
fi
TXT=$C/mixed.log
JD=$C/journal
NUNIT=$(cat "$C/unit-entries")
NTXT=$(wc -l < "$TXT")

REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$ROOT" diff --quiet HEAD -- . ':!bench' 2>/dev/null || REV="$REV+dirty"

# TEXT=0 skips the text and journal parts (agreement and timing): the live part alone.
if [ "${TEXT:-1}" = 1 ]; then
# --- agreement before any timing ---------------------------------------------------------------
echo "## Agreement: text file ($NTXT lines)"
"$SW" analyze --format json "$TXT" > "$W/agree-sw.json"
$MT --logs "$TXT" > "$W/agree-mt.prom" 2>/dev/null
python3 "$ROOT/bench/compare.py" "$W/agree-sw.json" "$W/agree-mt.prom" | tee "$W/agree-text.md"
echo
echo "## Agreement: journal, -u $UNIT ($NUNIT entries; mtail reads journalctl -o cat, which has no host)"
# mtail rc50 --one_shot never sees EOF on a pipe (--logs /dev/stdin keeps polling until killed),
# so "journalctl | mtail" goes through a file: journalctl -o cat > $W/unit.txt && mtail --logs it.
"$SW" analyze --journal-dir "$JD" --unit $UNIT --format json > "$W/agree-swj.json"
journalctl -D "$JD" -u $UNIT -o cat > "$W/unit.txt"
$MT --logs "$W/unit.txt" > "$W/agree-mtj.prom" 2>/dev/null
python3 "$ROOT/bench/compare.py" "$W/agree-swj.json" "$W/agree-mtj.prom" --ignore-host | tee "$W/agree-journal.md"
echo

# --- timing ------------------------------------------------------------------------------------
R=$W/runs.tsv
: > "$R"
measure() { # group name command...
	local g=$1 n=$2 cmd=$3 t
	t=$(mktemp -p "$W")
	/usr/bin/time -f '%e %U %S %M' -o "$t" bash -c "$cmd" > /dev/null
	printf '%s\t%s\t%s\t%s\n' "$g" "$n" "$(tail -1 "$t" | tr ' ' '\t')" "$cmd" >> "$R"
	rm -f "$t"
}
declare -a TN TC JN JC
# grep writes to a file: GNU grep stops at the first match when its output is /dev/null
TN=(specwatch mtail grep)
TC=("exec $SW analyze --format json $TXT"
	"exec $MT --logs $TXT 2>/dev/null"
	"grep -c 'Decode batch' $TXT > $W/grep.count")
JN=(specwatch "journalctl -o cat" "journalctl -o cat > file; mtail file")
JC=("exec $SW analyze --journal-dir $JD --unit $UNIT --format json"
	"exec journalctl -D $JD -u $UNIT -o cat"
	"journalctl -D $JD -u $UNIT -o cat > $W/unit.txt && exec $MT --logs $W/unit.txt 2>/dev/null")
# warm the page cache once, then alternate the tools run by run
cat "$TXT" "$JD"/*.journal > /dev/null
for ((i = 1; i <= RUNS; i++)); do
	echo "run $i/$RUNS" >&2
	for j in 0 1 2; do measure text "${TN[$j]}" "${TC[$j]}"; done
	for j in 0 1 2; do measure journal "${JN[$j]}" "${JC[$j]}"; done
done

# --- report ------------------------------------------------------------------------------------
python3 - "$R" "$NTXT" "$NUNIT" > "$W/results.md" <<PY
import sys, statistics as st
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])]
ntxt, nunit = int(sys.argv[2]), int(sys.argv[3])
med = {}
for g, n, e, u, s, m, cmd in rows:
    d = med.setdefault((g, n), {'e': [], 'c': [], 'm': [], 'cmd': cmd})
    d['e'].append(float(e)); d['c'].append(float(u) + float(s)); d['m'].append(int(m))
cpu = open('/proc/cpuinfo').read().split('model name')[1].split(':', 1)[1].split('\n')[0].strip()
print('Machine: %s, \`nproc\` = $(nproc), load average at start: $(cut -d' ' -f1-3 /proc/loadavg). ' % cpu)
print('Versions: specwatch $REV ($(go env GOVERSION)), $($MTAIL --version | cut -d' ' -f1-3), $(journalctl --version | head -1). ')
print('Medians of $RUNS alternated runs; CPU = user + sys of the whole command (both processes of a pipe); ')
print('peak RSS = largest single process (GNU time %M).\n')
print('| input | tool | wall s | lines/s | CPU s | CPU µs/line | peak RSS MB | runs (wall s) |')
print('| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |')
for g, n_in, label in (('text', ntxt, 'text, %d lines' % ntxt), ('journal', nunit, 'journal, -u $UNIT (%d entries)' % nunit)):
    for (gg, n), d in med.items():
        if gg != g: continue
        e, c, m = st.median(d['e']), st.median(d['c']), st.median(d['m'])
        d['lps'] = n_in / e if e > 0 else float('inf')
        print('| %s | %s | %.2f | %s | %.2f | %.3f | %.1f | %s |' % (label, n.replace('|', '\\\\|'), e,
              '{:,.0f}'.format(d['lps']), c, c / n_in * 1e6, m / 1024, ' '.join('%.2f' % x for x in d['e'])))
print('\nCommands:\n')
for (g, n), d in med.items():
    print('- %s / %s: \`%s\`' % (g, n, d['cmd'].replace('exec ', '')))
t = {k: v for k, v in med.items()}
sw, mt = t[('text', 'specwatch')], t[('text', 'mtail')]
js, jc = t[('journal', 'specwatch')], t[('journal', 'journalctl -o cat')]
swc = st.median(sw['c']) / ntxt * 1e6
print('\n| target | measured | met |')
print('| --- | --- | --- |')
r = sw['lps'] / mt['lps']
print('| text: ≥ 20× mtail lines/s | %.1f× | %s |' % (r, 'yes' if r >= 20 else '**no**'))
print('| text: CPU ≤ 0.3 µs/line (model and report included) | %.3f µs | %s |' % (swc, 'yes' if swc <= 0.3 else '**no**'))
r = js['lps'] / jc['lps']
print('| journal: ≥ 1.3× entries/s of journalctl -o cat | %.2f× | %s |' % (r, 'yes' if r >= 1.3 else '**no**'))
a, b = st.median(sw['m']) / 1024, st.median(mt['m']) / 1024
print('| text: peak RSS ≤ mtail | %.1f MB vs %.1f MB | %s |' % (a, b, 'yes' if a <= b else '**no**'))
PY
else
	[ -s "$W/unit.txt" ] || journalctl -D "$JD" -u $UNIT -o cat > "$W/unit.txt"
	echo "Live part only (TEXT=0): specwatch $REV ($(go env GOVERSION)), $(nproc) CPUs, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)." > "$W/results.md"
fi

# --- live (LIVE=0 skips): private journald at 2,000 lines/s, specwatch run following it ----------
# LIVE_RUNS runs for each configuration in LIVE_CONFIGS (the first is the default, whose medians
# go against the targets), alternated; medians and every run are printed. Configurations:
# default (no arguments: the native backend), sdjournal (libsystemd through go-systemd, the
# fallback).
live_args() {
	case $1 in
	default) echo "" ;;
	sdjournal) echo "--journal-backend sdjournal" ;;
	*) echo "unknown live configuration $1" >&2; exit 2 ;;
	esac
}
if [ "${LIVE:-1}" = 1 ]; then
	LIVE_RUNS=${LIVE_RUNS:-3}
	LIVE_CONFIGS=${LIVE_CONFIGS:-default sdjournal}
	: > "$W/live.txt"
	for i in $(seq "$LIVE_RUNS"); do
		for t in $LIVE_CONFIGS; do
			L=$(SPECWATCH_LIVE_ARGS="$(live_args "$t")" SPECWATCH_BIN=$SW SPECWATCH_LIVE_LINES=$W/unit.txt \
				go test -count=1 -run TestLive -v -timeout 5m ./bench/ | grep '^LIVE' || true)
			echo "$t $L" >> "$W/live.txt"
		done
	done
	{
		echo
		echo "Live: \`SPECWATCH_LIVE_ARGS=ARGS SPECWATCH_BIN=$SW SPECWATCH_LIVE_LINES=$W/unit.txt go test -count=1 -run TestLive -v ./bench/\`, $LIVE_RUNS alternated runs per configuration:"
		python3 - "$W/live.txt" <<'PY'
import re, sys, statistics as st
runs = {}
for line in open(sys.argv[1]):
    t, _, l = line.strip().partition(' ')
    if not l:
        print('\n    a run of %s failed: run the go test above by hand' % t)
        continue
    g = lambda k: float(re.search(k + r'=([0-9.]+)', l).group(1))
    runs.setdefault(t, []).append((g('cpu'), g('VmHWM'), g('max RssAnon'), g('p99')))
print()
print('| configuration | CPU % of one core | VmHWM MB | peak RssAnon MB | p99 write → /metrics ms | runs (CPU %) |')
print('| --- | ---: | ---: | ---: | ---: | --- |')
for t, rs in runs.items():
    m = [st.median(x[k] for x in rs) for k in range(4)]
    print('| %s | %.2f | %.1f | %.1f | %.1f | %s |' % (t, m[0], m[1], m[2], m[3],
          ' '.join('%.2f' % x[0] for x in rs)))
t0 = next(iter(runs), None)
if t0 is not None:
    cpu, rss, anon, p99 = [st.median(x[k] for x in runs[t0]) for k in range(4)]
    print()
    print('| target (%s) | measured (median) | met |' % t0)
    print('| --- | --- | --- |')
    print('| live: ≤ 2 %% of one core at 2,000 lines/s | %.2f %% | %s |' % (cpu, 'yes' if cpu <= 2 else '**no**'))
    print('| live: RSS ≤ 30 MB (VmHWM: peak RSS, mapped files included) | %.1f MB | %s |' % (rss, 'yes' if rss <= 30 else '**no**'))
    print('| live: p99 write → /metrics ≤ 50 ms | %.1f ms | %s |' % (p99, 'yes' if p99 <= 50 else '**no**'))
PY
	} >> "$W/results.md"
fi
cat "$W/results.md"
