#!/usr/bin/env bash
# Installs every system package specwatch needs: `deps.sh build` for building and running it,
# `deps.sh test` (the default) for the whole test suite as well.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

build_pkgs=(gcc pkg-config libsystemd-dev binutils)
test_pkgs=(systemd-journal-remote chromium systemd prometheus prometheus-alertmanager victoria-metrics strace lintian
	python3-zmq python3-msgpack # the engines' forward-pass publisher, ingest/fwdpass/testdata/publisher.py
	podman runc netavark docker.io # real container runtimes: internal/testkit/testpodman, test/e2e, deploy's image
	bash-completion zsh fish man-db groff-base) # the completion scripts in their shells, the man page rendered (cmd/specwatch)

need_go
apt_install "${build_pkgs[@]}"
if [ "${1:-test}" = test ]; then
	apt_install "${test_pkgs[@]}"
	# systemd's own test journals, for the native reader's differential tests (cached); the
	# tests fail without them under SPECWATCH_REQUIRE_JOURNALD=1, as scripts/test.sh runs them
	scripts/systemd-testdata.sh >/dev/null ||
		echo "WARNING: systemd's test journals (Debian 13's systemd-tests) could not be fetched: the differential tests will say so" >&2
	# the real engine, llama.cpp's llama-server, and the models test/llamacpp runs it with (cached)
	if [ "$(id -u)" -eq 0 ]; then
		scripts/llamacpp-engine.sh >/dev/null ||
			echo "WARNING: the llama.cpp engine could not be prepared (scripts/llamacpp-engine.sh): test/llamacpp will say so" >&2
	fi
fi
go mod download
