#!/usr/bin/env bash
# The operator's path, end to end, on a throwaway machine (root, systemd not running): build
# the Debian package, install it, run test/e2e's TestOperatorPath on the installed binary and
# config (the unit's ExecStart: /usr/bin/specwatch run --config.file /etc/specwatch/specwatch.yaml,
# here with --file added and as root: without systemd there is no DynamicUser), then purge it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
need_go
if [ "$(id -u)" != 0 ]; then echo "operator-path.sh: installing a package needs root" >&2; exit 2; fi
if [ -d /run/systemd/system ]; then echo "operator-path.sh: systemd is running; installing would start specwatch" >&2; exit 2; fi
if dpkg-query -W -f='${Status}' specwatch 2>/dev/null | grep -q installed; then
	echo "operator-path.sh: a specwatch package is installed already; not replacing it" >&2
	exit 2
fi
dist=$(mktemp -d)
trap 'dpkg --purge specwatch >/dev/null 2>&1 || true; rm -rf "$dist"' EXIT
deb=$(DIST="$dist" scripts/package.sh)
dpkg -i "$deb"
/usr/bin/specwatch --version
SPECWATCH_OPERATOR_BIN=/usr/bin/specwatch SPECWATCH_OPERATOR_CONFIG=/etc/specwatch/specwatch.yaml \
	go test -count=1 -run 'TestOperatorPath$' -v ./test/e2e/
