#!/bin/sh
# Rebuilds the journalctl fixtures from mkjournal.go through a real journal file.
# Needs Go, systemd-journal-remote (Debian: apt-get install systemd-journal-remote) and journalctl.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/j"
go run mkjournal.go >"$tmp/in.export"
/lib/systemd/systemd-journal-remote --output="$tmp/j/test.journal" --split-mode=none - <"$tmp/in.export"
for o in json export short-iso short-precise cat; do
	journalctl -D "$tmp/j" --no-pager -o "$o" >"journal.$o"
done
journalctl -D "$tmp/j" --no-pager --all -o json >journal-all.json
