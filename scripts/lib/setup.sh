# Shared set-up for scripts/test, scripts/demo and scripts/bench.
# Installs what a fresh Debian/Ubuntu machine lacks, so nothing is done by hand.

flowd_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Runs a command as root: directly when we are root, else through sudo.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=0
# apt_install PACKAGE...: installs Debian packages, running apt-get update once.
apt_install() {
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "error: $* missing and apt-get is not available; install them with your package manager" >&2
        exit 1
    fi
    if [ "$apt_updated" -eq 0 ]; then
        as_root apt-get update -qq
        apt_updated=1
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# ensure_toolchain: swift, pkg-config and libuv (libuv1-dev) must be present.
ensure_toolchain() {
    if ! command -v swift >/dev/null 2>&1; then
        echo "error: swift not found on PATH; install Swift 6.1 or later from swift.org" >&2
        exit 1
    fi
    if ! command -v pkg-config >/dev/null 2>&1; then
        echo "setup: installing pkg-config" >&2
        apt_install pkg-config
    fi
    if ! pkg-config --exists libuv; then
        echo "setup: installing libuv1-dev" >&2
        apt_install libuv1-dev
    fi
}
