# Shared by the scripts in this folder: find a Go new enough for go.mod, and install Debian
# packages only when missing (so repeated runs are fast and need no network).

need_go() {
	for g in go /usr/local/go/bin/go; do
		if command -v "$g" >/dev/null 2>&1; then
			v=$("$g" env GOVERSION 2>/dev/null | sed 's/^go//')
			major=${v%%.*}; rest=${v#*.}; minor=${rest%%.*}
			if [ "${major:-0}" -gt 1 ] || { [ "${major:-0}" -eq 1 ] && [ "${minor:-0}" -ge 26 ]; }; then
				GO=$(command -v "$g")
				export PATH="$(dirname "$GO"):$PATH"
				return 0
			fi
		fi
	done
	echo "specwatch needs Go 1.26 or newer (Debian's golang-go is 1.19): install it from go.dev/dl into /usr/local/go" >&2
	exit 1
}

# apt_install PKG...: installs the packages that are not installed yet.
apt_install() {
	missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
	echo "installing Debian packages:$missing" >&2
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
}
