#!/usr/bin/env bash
# Builds a release into dist/: one tarball per platform, the Debian package, the OCI image
# archive, the release notes and SHA256SUMS over all of them.
#
#   scripts/release.sh                        # every target; version from the tag (v1.2.3)
#   scripts/release.sh linux-amd64            # some targets only
#   VERSION=1.2.3 scripts/release.sh          # explicit version (semver, no leading v)
#   DIST=/tmp/out scripts/release.sh          # output directory (default dist/; a previous
#                                             # release's files in it are replaced)
#
# Targets: linux-amd64 (cgo: the libsystemd journal backend, as the Debian package),
# linux-arm64 and darwin-arm64 (CGO_ENABLED=0: no libsystemd backend; the native journal
# reader and journalctl remain; darwin is for `analyze`), deb (scripts/package.sh), oci
# (deploy/Dockerfile built with podman, saved as an OCI archive). Each tarball holds the
# binary, LICENSE, README.md, CHANGELOG.md, the man page and the bash, zsh and fish completion.
# RELEASE_NOTES.md is the CHANGELOG's section for the version.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
need_go

TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(linux-amd64 linux-arm64 darwin-arm64 deb oci)

# The version: the tag on HEAD (v1.2.3 → 1.2.3), else git describe's (1.2.3-4-gabcdef0), else
# 0.0.0-dev.REVISION. A release from an exact tag must have its CHANGELOG section.
tagged=
if [ -z "${VERSION:-}" ]; then
	if VERSION=$(git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null); then
		tagged=1
	elif ! VERSION=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
		VERSION="0.0.0-dev.$(git rev-parse --short=12 HEAD)"
	fi
	VERSION=${VERSION#v}
fi
if ! [[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]*)?$ ]]; then
	echo "release.sh: VERSION=$VERSION is not a semantic version (1.2.3, 1.2.3-rc.1)" >&2
	exit 2
fi
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && [ "${ALLOW_DIRTY:-}" != 1 ]; then
	echo "release.sh: the work tree has uncommitted changes; commit them (or ALLOW_DIRTY=1 for a test build)" >&2
	exit 1
fi
REVISION=$(git rev-parse HEAD 2>/dev/null || echo unknown)
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH
BUILDINFO=github.com/specwatch/specwatch/internal/buildinfo
LDFLAGS="-s -w -X $BUILDINFO.version=v$VERSION -X $BUILDINFO.revision=$REVISION"

DIST=${DIST:-dist}
mkdir -p "$DIST"
DIST=$(cd "$DIST" && pwd)
rm -f "$DIST"/specwatch_* "$DIST/RELEASE_NOTES.md" "$DIST/SHA256SUMS"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "release.sh: specwatch $VERSION ($REVISION) into $DIST: ${TARGETS[*]}" >&2

# The man page and completion, from a build for this machine (as scripts/package.sh does).
CGO_ENABLED=0 go build -trimpath -ldflags "$LDFLAGS" -o "$work/specwatch-gen" ./cmd/specwatch
mkdir -p "$work/doc/completions"
"$work/specwatch-gen" --help-man >"$work/doc/specwatch.1"
"$work/specwatch-gen" --completion-script-bash >"$work/doc/completions/specwatch.bash"
"$work/specwatch-gen" --completion-script-zsh >"$work/doc/completions/_specwatch"
"$work/specwatch-gen" --completion-script-fish >"$work/doc/completions/specwatch.fish"

# tarball OS ARCH CGO: dist/specwatch_VERSION_OS_ARCH.tar.gz, reproducible (sorted, owned by
# root, every time the commit's).
tarball() {
	local os=$1 arch=$2 cgo=$3 name="specwatch_${VERSION}_$1_$2"
	local dir="$work/$name"
	mkdir -p "$dir"
	if [ "$cgo" = 1 ]; then apt_install gcc pkg-config libsystemd-dev; fi
	if ! CGO_ENABLED=$cgo GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$LDFLAGS" -o "$dir/specwatch" ./cmd/specwatch; then
		echo "release.sh: $os-$arch: go build failed (above); build the other targets by naming them" >&2
		exit 1
	fi
	cp LICENSE README.md CHANGELOG.md "$dir/"
	cp -r "$work/doc/specwatch.1" "$work/doc/completions" "$dir/"
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
		-C "$work" -cf - "$name" | gzip -9n >"$DIST/$name.tar.gz"
	echo "$DIST/$name.tar.gz"
}

# The Debian version of VERSION: no hyphen (1.2.3-4-gabc → 1.2.3+git4.gabc, as package.sh
# derives it from git describe; 1.2.3-rc.1 → 1.2.3~rc.1, before 1.2.3).
debversion() {
	case $VERSION in
	*-*-g*) local base=${VERSION%%-*} rest=${VERSION#*-}; echo "$base+git${rest%%-*}.${rest#*-}" ;;
	*-*) echo "${VERSION%%-*}~${VERSION#*-}" | tr -- - . ;;
	*) echo "$VERSION" ;;
	esac
}

# The image of deploy/Dockerfile: its context is deploy/image/ with the static binary in it.
oci() {
	if ! command -v podman >/dev/null; then
		echo "release.sh: oci: podman is not installed (scripts/deps.sh installs it): no image archive built" >&2
		return 0
	fi
	local ctx="$work/image" image="localhost/specwatch:$VERSION"
	cp -r deploy/image "$ctx"
	CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags "$LDFLAGS" -o "$ctx/specwatch" ./cmd/specwatch
	podman build --quiet --pull=never --timestamp "$SOURCE_DATE_EPOCH" -f deploy/Dockerfile -t "$image" "$ctx" >&2
	rm -f "$DIST/specwatch_${VERSION}_oci.tar"
	podman save --quiet --format oci-archive -o "$DIST/specwatch_${VERSION}_oci.tar" "$image"
	podman rmi --force "$image" >/dev/null
	echo "$DIST/specwatch_${VERSION}_oci.tar"
}

for t in "${TARGETS[@]}"; do
	case $t in
	linux-amd64) tarball linux amd64 1 ;;
	linux-arm64) tarball linux arm64 0 ;;
	darwin-arm64) tarball darwin arm64 0 ;;
	deb)
		deb=$(VERSION=$(debversion) DIST="$work/deb" ARCH=amd64 scripts/package.sh)
		mv "$deb" "$DIST/" && echo "$DIST/$(basename "$deb")"
		;;
	oci) oci ;;
	*)
		echo "release.sh: unknown target $t (linux-amd64, linux-arm64, darwin-arm64, deb, oci)" >&2
		exit 2
		;;
	esac
done

# The release notes: the CHANGELOG's "## [VERSION]" section, else (not a tagged build) the
# Unreleased one.
notes() { awk -v h="## [$1]" 'index($0, h) == 1 { on = 1; next } on && /^## \[/ { exit } on' CHANGELOG.md; }
body=$(notes "$VERSION")
if [ -z "$body" ]; then
	if [ -n "$tagged" ]; then
		echo "release.sh: CHANGELOG.md has no \"## [$VERSION]\" section for the tag v$VERSION" >&2
		exit 1
	fi
	echo "release.sh: CHANGELOG.md has no section for $VERSION; the release notes are the Unreleased section" >&2
	body=$(notes Unreleased)
	if [ -z "$(tr -d '[:space:]' <<<"$body")" ]; then
		latest=$(sed -n 's/^## \[\([0-9][^]]*\)\].*/\1/p' CHANGELOG.md | head -1)
		body="No change is recorded since ${latest:-the last release} (CHANGELOG.md)."
	fi
fi
printf '# specwatch %s\n\n%s\n' "$VERSION" "$(sed '/./,$!d' <<<"$body")" >"$DIST/RELEASE_NOTES.md"

(cd "$DIST" && sha256sum specwatch_* RELEASE_NOTES.md >SHA256SUMS)
echo "$DIST/SHA256SUMS"
