#!/usr/bin/env bash
# Side-by-side benchmark: specwatch vs mtail and journalctl on two 1M-record corpora: sim.Mixed
# (four engines on four hosts, journalctl -o short, also as a real journal file) and sim.Chatty
# (one SGLang unit among its own chatter, journalctl -o short-iso, text only). Usage, from anywhere:
#
#   bench/run.sh                 # RUNS=5 LINES=1000000 TEXT=1 JOURNAL=1 LIVE=1 LIVE_RUNS=3 LIVE_CONFIGS="default sdjournal" BENCH_DIR=/tmp/specwatch-bench
#   LIVE=0 JOURNAL=0 bench/run.sh   # the two text corpora only
#   MANY=1 bench/run.sh          # also 10,000 files: memory after reading, CPU while idle
#
# Everything it builds, downloads or generates lives in $BENCH_DIR (the corpora are cached there).
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
# Built beside and copied into place: the binary the linker writes has a larger resident set
# than the same bytes copied (15.5 vs 12.9 MB for \`specwatch version\`), as an installed one is.
go build -o "$SW.link" ./cmd/specwatch && cp "$SW.link" "$SW" && rm "$SW.link"
PROGS=$ROOT/bench/mtail
MT="$MTAIL --one_shot --one_shot_format=prometheus --progs $PROGS --logtostderr"

# --- corpora (cached) -------------------------------------------------------------------------
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
C2=$W/chatty-$LINES
[ -f "$C2/summary.txt" ] || go run ./bench/cmd/corpus -preset chatty -lines "$LINES" -out "$C2"
TXT2=$C2/chatty.log
NTXT2=$(wc -l < "$TXT2")
# The chatty corpus holds SGLang lines only: mtail runs what a user of such units would write,
# the SGLang part of the program (all of it would cost mtail a fifth more there).
MTS=$W/mtail-sglang.mtail
sed '/^# --- other engines/,$d' "$PROGS/specwatch.mtail" > "$MTS"
MT2="$MTAIL --one_shot --one_shot_format=prometheus --progs $MTS --logtostderr"

REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$ROOT" diff --quiet HEAD -- . ':!bench' 2>/dev/null || REV="$REV+dirty"

# TEXT=0 skips the text and journal parts (agreement and timing): the live part alone.
# JOURNAL=0 skips the journal's agreement and timing: the two text corpora alone.
JOURNAL=${JOURNAL:-1}
if [ "${TEXT:-1}" = 1 ]; then
# --- agreement before any timing ---------------------------------------------------------------
echo "## Agreement: text file, mixed ($NTXT lines)"
"$SW" analyze --format json "$TXT" > "$W/agree-sw.json"
$MT --logs "$TXT" > "$W/agree-mt.prom" 2>/dev/null
python3 "$ROOT/bench/compare.py" "$W/agree-sw.json" "$W/agree-mt.prom" | tee "$W/agree-text.md"
echo
echo "## Agreement: text file, chatty ($NTXT2 lines; mtail runs the SGLang part of its program)"
"$SW" analyze --format json "$TXT2" > "$W/agree-sw2.json"
$MT2 --logs "$TXT2" > "$W/agree-mt2.prom" 2>/dev/null
python3 "$ROOT/bench/compare.py" "$W/agree-sw2.json" "$W/agree-mt2.prom" | tee "$W/agree-chatty.md"
echo
if [ "$JOURNAL" = 1 ]; then
echo "## Agreement: journal, -u $UNIT ($NUNIT entries; mtail reads journalctl -o cat, which has no host)"
# mtail rc50 --one_shot never sees EOF on a pipe (--logs /dev/stdin keeps polling until killed),
# so "journalctl | mtail" goes through a file: journalctl -o cat > $W/unit.txt && mtail --logs it.
"$SW" analyze --journal.directory "$JD" --journal.unit $UNIT --format json > "$W/agree-swj.json"
journalctl -D "$JD" -u $UNIT -o cat > "$W/unit.txt"
$MT --logs "$W/unit.txt" > "$W/agree-mtj.prom" 2>/dev/null
python3 "$ROOT/bench/compare.py" "$W/agree-swj.json" "$W/agree-mtj.prom" --ignore-host | tee "$W/agree-journal.md"
echo
fi

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
declare -a TN TC T2C JN JC
# grep writes to a file: GNU grep stops at the first match when its output is /dev/null
TN=(specwatch mtail grep)
TC=("exec $SW analyze --format json $TXT"
	"exec $MT --logs $TXT 2>/dev/null"
	"grep -c 'Decode batch' $TXT > $W/grep.count")
T2C=("exec $SW analyze --format json $TXT2"
	"exec $MT2 --logs $TXT2 2>/dev/null"
	"grep -c 'Decode batch' $TXT2 > $W/grep.count")
JN=(specwatch "journalctl -o cat" "journalctl -o cat > file; mtail file")
JC=("exec $SW analyze --journal.directory $JD --journal.unit $UNIT --format json"
	"exec journalctl -D $JD -u $UNIT -o cat"
	"journalctl -D $JD -u $UNIT -o cat > $W/unit.txt && exec $MT --logs $W/unit.txt 2>/dev/null")
# warm the page cache once, then alternate the tools run by run
cat "$TXT" "$TXT2" > /dev/null
[ "$JOURNAL" = 0 ] || cat "$JD"/*.journal > /dev/null
for ((i = 1; i <= RUNS; i++)); do
	echo "run $i/$RUNS" >&2
	for j in 0 1 2; do measure text "${TN[$j]}" "${TC[$j]}"; done
	for j in 0 1 2; do measure chatty "${TN[$j]}" "${T2C[$j]}"; done
	[ "$JOURNAL" = 0 ] || for j in 0 1 2; do measure journal "${JN[$j]}" "${JC[$j]}"; done
done

# --- report ------------------------------------------------------------------------------------
python3 - "$R" "$NTXT" "$NTXT2" "$NUNIT" > "$W/results.md" <<PY
import sys, statistics as st
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])]
ntxt, ntxt2, nunit = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
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
groups = (('text', ntxt, 'text, mixed, %d lines' % ntxt), ('chatty', ntxt2, 'text, chatty, %d lines' % ntxt2),
          ('journal', nunit, 'journal, -u $UNIT (%d entries)' % nunit))
for g, n_in, label in groups:
    for (gg, n), d in med.items():
        if gg != g: continue
        e, c, m = st.median(d['e']), st.median(d['c']), st.median(d['m'])
        d['lps'] = n_in / e if e > 0 else float('inf')
        d['cpl'] = c / n_in * 1e6
        print('| %s | %s | %.2f | %s | %.2f | %.3f | %.1f | %s |' % (label, n.replace('|', '\\\\|'), e,
              '{:,.0f}'.format(d['lps']), c, d['cpl'], m / 1024, ' '.join('%.2f' % x for x in d['e'])))
print('\nCommands:\n')
for (g, n), d in med.items():
    print('- %s / %s: \`%s\`' % (g, n, d['cmd'].replace('exec ', '')))
t = med
yes = lambda ok: 'yes' if ok else '**no**'
print('\n| target | measured | met |')
print('| --- | --- | --- |')
for g, name, agree in (('text', 'text, mixed', 'agree-text.md'), ('chatty', 'text, chatty', 'agree-chatty.md')):
    sw, mt = t[(g, 'specwatch')], t[(g, 'mtail')]
    r = sw['lps'] / mt['lps']
    print('| %s: ≥ 20× mtail lines/s | %.1f× | %s |' % (name, r, yes(r >= 20)))
    r = mt['cpl'] / sw['cpl'] if sw['cpl'] > 0 else float('inf')
    print('| %s: ≥ 20× less CPU than mtail | %.1f× | %s |' % (name, r, yes(r >= 20)))
    print('| %s: CPU ≤ 0.3 µs/line (model and report included) | %.3f µs | %s |' % (name, sw['cpl'], yes(sw['cpl'] <= 0.3)))
    a, b = st.median(sw['m']) / 1024, st.median(mt['m']) / 1024
    print('| %s: peak RSS ≤ mtail | %.1f MB vs %.1f MB | %s |' % (name, a, b, yes(a <= b)))
    ok = 'agreement: OK' in open('$W/' + agree).read()
    print('| %s: same samples and last commit length per series as mtail | %s | %s |' % (name, 'agree' if ok else 'differ', yes(ok)))
if ('journal', 'specwatch') in t:
    js, jc = t[('journal', 'specwatch')], t[('journal', 'journalctl -o cat')]
    r = js['lps'] / jc['lps']
    print('| journal: ≥ 1.3× entries/s of journalctl -o cat | %.2f× | %s |' % (r, yes(r >= 1.3)))
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
	sdjournal) echo "--journal.backend sdjournal" ;;
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
				go test -count=1 -run 'TestLive$' -v -timeout 5m ./bench/ | grep '^LIVE ' || true)
			echo "$t $L" >> "$W/live.txt"
		done
	done
	{
		echo
		echo "Live: \`SPECWATCH_LIVE_ARGS=ARGS SPECWATCH_BIN=$SW SPECWATCH_LIVE_LINES=$W/unit.txt go test -count=1 -run 'TestLive$' -v ./bench/\`, $LIVE_RUNS alternated runs per configuration:"
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

# --- files (FILES=0 skips): `run --file` at 2,000 lines/s, and one node's 200 pod logs ----------
if [ "${FILES:-1}" = 1 ]; then
	FL=$(SPECWATCH_BIN=$SW SPECWATCH_LIVE_LINES=$W/unit.txt go test -count=1 -run 'TestLiveFiles$' -v -timeout 5m ./bench/ | grep '^LIVEFILES' || echo "LIVEFILES failed")
	FN=$(SPECWATCH_BIN=$SW go test -count=1 -run 'TestNodeFiles$' -v -timeout 5m ./bench/ | grep '^NODEFILES' || echo "NODEFILES failed")
	{
		echo
		echo "Files (load average $(cut -d' ' -f1-3 /proc/loadavg)): \`SPECWATCH_BIN=$SW go test -count=1 -run 'TestLiveFiles|TestNodeFiles' -v ./bench/\`"
		echo
		echo "    $FL"
		echo "    $FN"
	} >> "$W/results.md"
fi

# --- many files (MANY=1 runs it; about 2 minutes and 10 GB in $TMPDIR): issue 27's targets, idle on the real clock too
if [ "${MANY:-0}" = 1 ]; then
	MF=$(go test -count=1 -run '^$' -bench 'BenchmarkManyFiles' -benchtime=1x -timeout 10m ./ingest/file/ | grep '^BenchmarkManyFiles' || echo "MANYFILES failed")
	{
		echo
		echo "Many files (load average $(cut -d' ' -f1-3 /proc/loadavg); targets ≤ 64 MB after reading, ≤ 2 % of a core idle):"
		echo
		echo "$MF" | sed 's/^/    /'
	} >> "$W/results.md"
fi
cat "$W/results.md"
