#!/usr/bin/env bash
# The long hardening runs (opt-in; CI runs the deterministic and short versions inside
# scripts/test.sh).
#
#   scripts/soak.sh [report.md]   a simulated week at 1000x with every fault at least ten times
#                                 (test/soak/soak_test.go), then the cardinality attack
#                                 (test/e2e/hostile_journal_test.go), one after the other (-p 1).
#                                 About 15 minutes. The report (Markdown) goes to report.md,
#                                 default soak-report.md.
#   scripts/soak.sh files [N]     the randomized exactly-once soak for files
#                                 (test/e2e TestFilesExactlyOnce: SIGKILL at 20 random moments of a
#                                 rotating stream), N runs (default 50), each with its own seed,
#                                 SOAK_JOBS at once (default 1); about 100 s a run. Prints a line
#                                 per run; a failing run keeps its daemon's debug log.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
. scripts/lib.sh
need_go
if [ "${1:-}" = files ]; then
	runs=${2:-50}
	jobs=${SOAK_JOBS:-1} # runs at once: each mostly waits on real time (load ≈ 0.3 a run)
	dir=$(realpath -m soak-files)
	rm -rf "$dir" && mkdir -p "$dir"
	go test -c -o "$dir/e2e.test" ./test/e2e/
	one() { # run number, seed
		if (cd test/e2e && SPECWATCH_SOAK=files SPECWATCH_SOAK_SEED=$2 SPECWATCH_SOAK_KEEP="$dir" "$dir/e2e.test" \
			-test.run '^TestFilesExactlyOnce$' -test.count=1 -test.v -test.timeout 10m) >"$dir/run-$1.log" 2>&1; then
			echo "run $1 seed $2: pass (load $(cut -d' ' -f1-3 /proc/loadavg))"
		else
			echo "run $1 seed $2: FAIL (load $(cut -d' ' -f1-3 /proc/loadavg); $dir/run-$1.log, daemon log $dir/files-$2.log)"
		fi
	}
	for i in $(seq 1 "$runs"); do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
		one "$i" $(( ($(date +%s%N) + i) % 1000000007 )) | tee -a "$dir/tally.txt" &
	done
	wait
	pass=$(grep -c ': pass' "$dir/tally.txt" || true)
	echo "TestFilesExactlyOnce: $pass of $runs passed; logs in $dir"
	[ "$pass" -eq "$runs" ]
	exit
fi
report=$(realpath -m "${1:-soak-report.md}")
export SPECWATCH_REQUIRE_JOURNALD=1 SPECWATCH_SOAK=long SPECWATCH_SOAK_REPORT="$report"
log=${report%.md}.log
rc=0
go test -count=1 -p 1 -timeout 60m -run '^(TestSoak|TestCardinalityAttack)$' -v ./test/soak/ ./test/e2e/ >"$log" 2>&1 || rc=$?
grep -E '^(=== RUN|--- |PASS|FAIL|ok)|soak_|hostile_' "$log" || true
echo "report: $report; full log: $log"
exit $rc
