#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this): installs the system
# packages (and systemd's test journals, scripts/systemd-testdata.sh), then vet, staticcheck,
# race-enabled tests, and every native fuzz target for a few seconds.
# FUZZTIME=10m scripts/test.sh runs the fuzzers for longer. The default is a count of inputs, not
# a duration: a duration's deadline can expire while a worker is mid-input, which go test then
# reports as a failure ("context deadline exceeded") though nothing failed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
. scripts/lib.sh
need_go

fuzztime=${FUZZTIME:-20000x}
# The journald tests must run here (root, mount namespaces): a skip would hide a broken setup.
export SPECWATCH_REQUIRE_JOURNALD=1
# test/llamacpp runs the real llama-server (scripts/llamacpp-engine.sh, run by deps.sh): a
# missing engine fails here rather than skipping.
export SPECWATCH_REQUIRE_ENGINE=1
echo "== go vet"
go vet ./...
echo "== staticcheck"
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
echo "== build"
# The end-to-end tests build the binary (-trimpath, as internal/testkit/testharness does): built
# here first, its packages are in the cache before the race builds compete for the cores.
go build -trimpath -o /dev/null ./cmd/specwatch
echo "== go test -race"
# test/privilege rebuilds the unit's sandbox by remounting the host's tree; podman's overlay
# mounts under /var/lib/containers, made by the container tests running beside it, failed that
# setup in one full run of two. It runs alone, after the rest.
# -p 3 and -parallel 4: the end-to-end tests spend most of their minutes waiting on real time
# (alert rules' for:, rotations, restarts), not on the two cores, so three packages at once and
# four of their parallel tests overlap those waits (the whole run took 16.4 min with -p 2).
go test -race -count=1 -timeout 20m -p 3 -parallel 4 $(go list ./... | grep -v -e '/test/privilege$' -e '/test/llamacpp$')
go test -race -count=1 ./test/privilege
# The real engine's step times are the truth its step model is judged against: it runs alone,
# the machine's cores its own (beside the other packages a request's steps ran 70 % slower).
go test -race -count=1 -timeout 20m ./test/llamacpp
echo "== fuzz ($fuzztime each)"
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "-- $pkg $target"
		go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" >/tmp/specwatch-fuzz.log 2>&1 || {
			cat /tmp/specwatch-fuzz.log
			exit 1
		}
	done
done
echo "all tests passed"
