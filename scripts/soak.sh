#!/usr/bin/env bash
# The long hardening run (opt-in; CI runs the short versions inside scripts/test.sh): a simulated
# week at 1000x with every fault at least ten times (test/soak/soak_test.go), then the cardinality
# attack (test/e2e/hostile_journal_test.go), one after the other (-p 1). About 15 minutes. The
# report (Markdown) goes to $1, default soak-report.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
. scripts/lib.sh
need_go
report=$(realpath -m "${1:-soak-report.md}")
export SPECWATCH_REQUIRE_JOURNALD=1 SPECWATCH_SOAK=long SPECWATCH_SOAK_REPORT="$report"
log=${report%.md}.log
rc=0
go test -count=1 -p 1 -timeout 60m -run '^(TestSoak|TestCardinalityAttack)$' -v ./test/soak/ ./test/e2e/ >"$log" 2>&1 || rc=$?
grep -E '^(=== RUN|--- |PASS|FAIL|ok)|soak_|hostile_' "$log" || true
echo "report: $report; full log: $log"
exit $rc
