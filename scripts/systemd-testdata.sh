#!/usr/bin/env bash
# Fetches systemd's own test journals (test/test-journals in systemd's source: the no-rtc set,
# the corrupted files, the AFL-found corrupted journals) from Debian 13's systemd-tests package,
# for the native journal reader's differential tests (ingest/journal/native/diff_test.go).
# The machine's apt sources are left alone: a private sources.list, lists and cache live in
# the cache directory, and the package is unpacked with dpkg-deb, not installed.
#
# Prints the test-journals directory. Cached: a second run needs no network.
# The tests look in the same place ($SPECWATCH_SYSTEMD_TESTDATA overrides it).
set -euo pipefail
cache=${XDG_CACHE_HOME:-$HOME/.cache}/specwatch/systemd-tests
out=$cache/root/usr/lib/systemd/tests/testdata/test-journals
if [ -d "$out/no-rtc" ] && [ -f "$out/afl-corrupted-journals.tar.zst" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$cache/lists/partial" "$cache/cache/archives/partial" "$cache/etc"
echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main' >"$cache/etc/sources.list"
apt=(apt-get -qq -o "Dir::Etc::SourceList=$cache/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$cache/lists" -o "Dir::Cache=$cache/cache")
"${apt[@]}" update >&2
(cd "$cache" && "${apt[@]}" download systemd-tests >&2)
deb=$(ls "$cache"/systemd-tests_*.deb | head -n 1)
rm -rf "$cache/root.tmp"
dpkg-deb -x "$deb" "$cache/root.tmp"
rm -rf "$cache/root"
mv "$cache/root.tmp" "$cache/root"
test -d "$out/no-rtc"
echo "$out"
