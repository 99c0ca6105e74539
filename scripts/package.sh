#!/usr/bin/env bash
# Builds the Debian package in one command: dist/specwatch_<version>_<arch>.deb.
#
#   scripts/package.sh                      # version from `git describe` (tags v1.2.3)
#   VERSION=1.2.3 scripts/package.sh        # explicit Debian version (no hyphen)
#   DIST=/tmp/out scripts/package.sh        # output directory (default dist/)
#
# The binary is built with cgo (the sd-journal backend links libsystemd); nfpm is the version
# pinned in deploy/nfpm/go.mod, built through the Go module proxy like any dependency.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
need_go
apt_install gcc pkg-config libsystemd-dev binutils

# A Debian upstream version: digits first, no hyphen (that would start a Debian revision).
if [ -z "${VERSION:-}" ]; then
	if d=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
		# v1.2.3 → 1.2.3; v1.2.3-4-gabcdef0 → 1.2.3+git4.gabcdef0
		d=${d#v}
		case $d in
		*-*-g*) base=${d%-*-g*}; rest=${d#"$base"-}; VERSION="$base+git${rest%%-*}.${rest#*-}" ;;
		*) VERSION=$d ;;
		esac
	elif rev=$(git rev-parse --short=12 HEAD 2>/dev/null); then
		VERSION="0.0.0~git$(git log -1 --format=%cd --date=format:%Y%m%d).$rev"
	else
		VERSION="0.0.0~dev"
	fi
fi
if ! [[ $VERSION =~ ^[0-9][A-Za-z0-9.+~]*$ ]]; then
	echo "package.sh: VERSION=$VERSION is not a Debian upstream version (digits first, then [A-Za-z0-9.+~])" >&2
	exit 2
fi
ARCH=${ARCH:-$(go env GOARCH)}
DIST=${DIST:-dist}
mkdir -p "$DIST/build"
DIST=$(cd "$DIST" && pwd)
# Reproducible file times: the commit's time when there is one.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export VERSION ARCH SOURCE_DATE_EPOCH

REVISION=${REVISION:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
BUILDINFO=github.com/specwatch/specwatch/internal/buildinfo
echo "building specwatch $VERSION ($ARCH, $REVISION)" >&2
# What Debian's policy and lintian ask of a binary: position-independent (-buildmode=pie),
# full RELRO and BIND_NOW, stripped (-s -w: no symbol table, no DWARF; a panic's stack trace
# keeps its function names and lines, which come from Go's own tables), and a GNU build id
# (-B gobuildid, derived from Go's build id, so a rebuild of the same source gets the same one).
CGO_ENABLED=1 GOARCH=$ARCH go build -trimpath -buildmode=pie \
	-ldflags "-s -w -B gobuildid -X $BUILDINFO.version=$VERSION -X $BUILDINFO.revision=$REVISION -extldflags '-Wl,-z,relro,-z,now'" \
	-o "$DIST/build/specwatch" ./cmd/specwatch
# The binary links libc through cgo: depend on the newest glibc symbol version it uses, as
# dpkg-shlibdeps would (libsystemd0 is for the sd-journal backend).
glibc=$(objdump -T "$DIST/build/specwatch" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)
if [ -z "$glibc" ]; then
	echo "package.sh: no GLIBC symbol version in $DIST/build/specwatch (was it built without cgo?)" >&2
	exit 1
fi
LIBC_DEPENDS="libc6 (>= $glibc)"
# A native package's changelog, in Debian's format, pointing at the project's own.
{
	echo "specwatch ($VERSION) unstable; urgency=medium"
	echo
	echo "  * Upstream build of revision ${REVISION:0:12}; the changes are listed"
	echo "    in /usr/share/doc/specwatch/CHANGELOG.md."
	echo
	echo " -- specwatch developers <specwatch@users.noreply.github.com>  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} >"$DIST/build/changelog"
gzip -9n -c "$DIST/build/changelog" >"$DIST/build/changelog.gz"
# The man page and shell completion, generated from the flag definitions by a build for this
# machine (the package's binary may be for another architecture).
CGO_ENABLED=0 go build -trimpath -ldflags "-X $BUILDINFO.version=$VERSION" -o "$DIST/build/specwatch-gen" ./cmd/specwatch
"$DIST/build/specwatch-gen" --help-man | gzip -9n >"$DIST/build/specwatch.1.gz"
"$DIST/build/specwatch-gen" --completion-script-bash >"$DIST/build/specwatch.bash"
"$DIST/build/specwatch-gen" --completion-script-zsh >"$DIST/build/_specwatch"
"$DIST/build/specwatch-gen" --completion-script-fish >"$DIST/build/specwatch.fish"
export LIBC_DEPENDS CHANGELOG_GZ="$DIST/build/changelog.gz" GEN_DIR="$DIST/build"
(cd deploy/nfpm && go build -o "$DIST/build/nfpm" github.com/goreleaser/nfpm/v2/cmd/nfpm)

export SPECWATCH_BIN="$DIST/build/specwatch"
deb="$DIST/specwatch_${VERSION}_${ARCH}.deb"
rm -f "$deb"
"$DIST/build/nfpm" package --config deploy/nfpm.yaml --packager deb --target "$deb" >&2
echo "$deb"
