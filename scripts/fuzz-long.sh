#!/usr/bin/env bash
# Runs every native fuzz target for FUZZTIME (default 10m), JOBS at a time (default 2), each
# with one worker, and prints each target's cache corpus before and after (the growth) and
# whether it failed. A failure leaves its input in the package's testdata/fuzz/<Target>/, where
# `go test` replays it from then on. Usage: scripts/fuzz-long.sh [FUZZTIME] > report.txt
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
need_go
fuzztime=${1:-${FUZZTIME:-10m}}
jobs=${JOBS:-2}
cache=$(go env GOCACHE)/fuzz
out=$(mktemp -d)
run_one() {
	local pkg=$1 target=$2 dir before after rc
	dir=$cache/$pkg/$target
	before=$(ls "$dir" 2>/dev/null | wc -l)
	rc=0
	go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" -parallel=1 "$pkg" >"$out/$target.log" 2>&1 || rc=$?
	after=$(ls "$dir" 2>/dev/null | wc -l)
	execs=$(grep -o 'execs: [0-9]*' "$out/$target.log" | tail -1 | cut -d' ' -f2)
	printf '%s\t%s\t%s\tcorpus %d -> %d\texecs %s\t%s\n' "$pkg" "$target" "$fuzztime" "$before" "$after" "${execs:-?}" \
		"$([ $rc -eq 0 ] && echo ok || echo "FAILED (log $out/$target.log)")"
}
pids=()
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		run_one "$pkg" "$target" &
		pids+=($!)
		if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
	done
done
wait
