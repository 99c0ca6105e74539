# Thin wrappers: the scripts are the source of truth (README, CI).
.PHONY: demo test bench build

demo:
	scripts/demo.sh

test:
	scripts/test.sh

build:
	go build -o bin/specwatch ./cmd/specwatch

bench:
	go test -run='^$$' -bench=. -benchmem ./parse/ ./ingest/ ./model/
