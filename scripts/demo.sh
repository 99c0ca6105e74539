#!/usr/bin/env bash
# Installs what specwatch needs and runs it on the embedded demo data.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build
. scripts/lib.sh
need_go
exec go run ./cmd/specwatch demo "$@"
