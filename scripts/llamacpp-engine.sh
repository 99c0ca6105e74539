#!/usr/bin/env bash
# Prepares the real engine for test/llamacpp: Debian sid's llama.cpp (bookworm has none) in a
# chroot, and the harness's models, made locally and deterministically (test/llamacpp/mkmodels.py
# on a corpus of Go's own sources). Needs root (debootstrap, chroot) and Debian's archive.
#
# Cached in ${XDG_CACHE_HOME:-$HOME/.cache}/specwatch/llamacpp: the chroot as a tarball (a new
# machine builds it once, ~2 min), unpacked beside it; the models by the hash of their inputs.
# A warm run takes a second. Prints `root=DIR`, `models=DIR` (inside root: /work/models) and
# `version=…` (llama-server --version).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
[ "$(id -u)" -eq 0 ] || { echo "llamacpp-engine.sh: needs root (debootstrap, chroot)" >&2; exit 1; }
apt_install debootstrap zstd

cache=${XDG_CACHE_HOME:-$HOME/.cache}/specwatch/llamacpp
# The packages of the chroot; changing this list rebuilds it.
pkgs="llama.cpp-tools python3-gguf python3-numpy python3-sentencepiece"
key=$(printf '%s\n' "sid minbase $pkgs" | sha256sum | cut -c1-12)
tarball=$cache/chroot-$key.tar.zst
root=$cache/root-$key
mkdir -p "$cache"

build_chroot() {
	local tmp=$cache/build.tmp
	rm -rf "$tmp"
	# sid's Release file is signed by keys bookworm's keyring may not hold yet, and may be past
	# its Valid-Until on a machine's clock: the archive is reached over the project's own mirror
	# of Debian, the packages' checksums still come from that Release file.
	debootstrap --variant=minbase --no-check-gpg sid "$tmp" http://deb.debian.org/debian >&2
	echo 'Acquire::Check-Valid-Until "false";' >"$tmp/etc/apt/apt.conf.d/99specwatch"
	cp /etc/resolv.conf "$tmp/etc/resolv.conf"
	chroot "$tmp" apt-get update -qq >&2
	chroot "$tmp" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs >&2
	chroot "$tmp" apt-get clean
	tar -C "$tmp" --zstd -cf "$tarball.tmp" .
	mv "$tarball.tmp" "$tarball"
	rm -rf "$tmp"
}

if [ ! -f "$root/.ready" ]; then
	[ -f "$tarball" ] || build_chroot
	rm -rf "$root"
	mkdir -p "$root"
	tar -C "$root" --zstd -xf "$tarball"
	touch "$root/.ready"
fi

# The corpus: a fixed list of Go's standard library sources, in a fixed order.
goroot=$(go env GOROOT)
mkdir -p "$root/work"
(cd "$goroot/src" && ls strings/*.go bytes/*.go sort/*.go bufio/*.go fmt/*.go net/http/server.go encoding/json/*.go |
	grep -v _test.go | LC_ALL=C sort | xargs cat) >"$root/work/corpus.txt.tmp"
mv "$root/work/corpus.txt.tmp" "$root/work/corpus.txt"
mkey=$(cat test/llamacpp/mkmodels.py "$root/work/corpus.txt" | sha256sum | cut -c1-12)
models=$root/work/models-$mkey
if [ ! -f "$models/.ready" ]; then
	cp test/llamacpp/mkmodels.py "$root/work/mkmodels.py"
	rm -rf "$models"
	chroot "$root" python3 /work/mkmodels.py /work/corpus.txt "/work/models-$mkey" >&2
	touch "$models/.ready"
fi
echo "root=$root"
echo "models=/work/models-$mkey"
echo "version=$(chroot "$root" llama-server --version 2>&1 | grep '^version:' | sed 's/^version: //')"
