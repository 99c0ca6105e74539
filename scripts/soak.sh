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
#                                 rotating stream), N runs (default 50), each with its own seed;
#                                 about a minute a run. Prints the tally and the seeds that failed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
. scripts/lib.sh
need_go
if [ "${1:-}" = files ]; then
	runs=${2:-50}
	log=soak-files.log
	: >"$log"
	go test -c -o /tmp/specwatch-e2e.test ./test/e2e/
	pass=0 fail=0 failed=""
	for i in $(seq 1 "$runs"); do
		seed=$(( $(date +%s%N) % 1000000007 ))
		if (cd test/e2e && SPECWATCH_SOAK=files SPECWATCH_SOAK_SEED=$seed /tmp/specwatch-e2e.test \
			-test.run '^TestFilesExactlyOnce$' -test.count=1 -test.v -test.timeout 10m) >>"$log" 2>&1; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1)) failed="$failed $seed"
		fi
		echo "run $i/$runs seed $seed: pass $pass fail $fail (load $(cut -d' ' -f1-3 /proc/loadavg))"
	done
	echo "TestFilesExactlyOnce: $pass of $runs passed${failed:+; failing seeds:$failed}; log: $log"
	[ "$fail" -eq 0 ]
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
