# Thin wrappers: the scripts are the source of truth (README, CI).
.PHONY: demo test bench build release soak fuzz-long

# The version from git, so that `make build` says it in any checkout (go build stamps the tag
# itself, but not in a git worktree or with -buildvcs=false); empty: go build's own stamp.
VERSION := $(shell git describe --tags --match 'v[0-9]*' --dirty=+dirty 2>/dev/null)
REVISION := $(shell git rev-parse HEAD 2>/dev/null)
BUILDINFO := github.com/specwatch/specwatch/internal/buildinfo

demo:
	scripts/demo.sh

test:
	scripts/test.sh

build:
	go build -ldflags "-X $(BUILDINFO).version=$(VERSION) -X $(BUILDINFO).revision=$(REVISION)" -o bin/specwatch ./cmd/specwatch

# Tarballs, the Debian package, the OCI image archive, RELEASE_NOTES.md and SHA256SUMS in dist/.
release:
	scripts/release.sh

bench:
	go test -run='^$$' -bench=. -benchmem ./parse/... ./ingest/... ./model/...

# Hardening, opt-in: a simulated week with faults (~15 min) and every fuzz target for 10 min.
soak:
	scripts/soak.sh

fuzz-long:
	scripts/fuzz-long.sh 10m
