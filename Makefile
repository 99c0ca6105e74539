# Thin wrappers: the scripts are the source of truth (README, CI).
.PHONY: demo test bench build soak fuzz-long

demo:
	scripts/demo.sh

test:
	scripts/test.sh

build:
	go build -o bin/specwatch ./cmd/specwatch

bench:
	go test -run='^$$' -bench=. -benchmem ./parse/... ./ingest/... ./model/...

# Hardening, opt-in: a simulated week with faults (~15 min) and every fuzz target for 10 min.
soak:
	scripts/soak.sh

fuzz-long:
	scripts/fuzz-long.sh 10m
