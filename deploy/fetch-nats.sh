#!/usr/bin/env bash
# Fetches nats-server 2.10 (Debian trixie's package, a static Go binary that needs only
# libc6 and runs on bookworm) into tools/nats-server, which the managed runtime prefers
# (deploy/nats-server.ts): bookworm's own 2.9.10 cannot fsync every write (README
# "Durability"). The machine's apt configuration is left as it is: the trixie source,
# its package lists and apt's caches are private to tools/apt and removed afterwards.
# When the download is impossible it says so and exits 0: bookworm's nats-server, which
# bootstrap.sh installs too, stays the managed server.
set -uo pipefail
cd "$(dirname "$0")/.."
dest=tools/nats-server
bin=$dest/usr/sbin/nats-server

# The version a binary prints (`nats-server: v2.10.27` -> 2.10.27), empty when it does not run.
version_of() { "$1" --version 2>/dev/null | sed -n 's/.*v\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | head -1; }
# Whether version $1 is 2.10.0 or later (sort -V -C: already in order).
at_least_210() { [ -n "$1" ] && printf '%s\n' 2.10.0 "$1" | sort -V -C; }

have=$(version_of "$bin")
if at_least_210 "$have"; then exit 0; fi # fetched before: nothing to do

fallback() {
  local installed
  installed=$(version_of "$(command -v nats-server || echo /usr/sbin/nats-server)")
  echo "bootstrap: nats-server 2.10 could not be fetched from Debian trixie ($1); the managed server stays the installed nats-server ${installed:-(none found)}, which fsyncs every two minutes, not every write (README \"Durability\")" >&2
  exit 0
}

# The Debian mirror the machine's own sources use (first .../debian URI), else deb.debian.org;
# LOOKOUT_DEBIAN_MIRROR names another (a local mirror).
mirror=${LOOKOUT_DEBIAN_MIRROR:-}
[ -n "$mirror" ] || mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
  | grep -v '^[[:space:]]*#' | grep -oE 'https?://[^][:space:]]+/debian/?([[:space:]]|$)' | head -1 | tr -d '[:space:]')
mirror=${mirror%/}
mirror=${mirror:-http://deb.debian.org/debian}

apt=$PWD/tools/apt
rm -rf "$apt" "$dest.partial"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/deb"
trap 'rm -rf "$apt" "$dest.partial"' EXIT
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
signed=""
if [ -f "$keyring" ]; then signed="[signed-by=$keyring] "; fi
echo "deb ${signed}$mirror trixie main" > "$apt/sources.list"
opts=(-q -o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$apt/lists"
  -o "Dir::Cache=$apt/cache" -o Acquire::Retries=1 -o Acquire::http::Timeout=30 -o Acquire::https::Timeout=30)
# As root, apt fetches as its _apt user, which cannot write into the project: fetch as root.
if [ "$(id -u)" = 0 ]; then opts+=(-o APT::Sandbox::User=root); fi

echo "fetching nats-server 2.10 from Debian trixie ($mirror) into $dest"
if ! out=$(apt-get "${opts[@]}" --error-on=any update 2>&1); then fallback "apt-get update: $(echo "$out" | grep -E '^(E|W):' | head -2 | tr '\n' ' ')"; fi
if ! out=$(cd "$apt/deb" && apt-get "${opts[@]}" download nats-server/trixie 2>&1); then fallback "apt-get download: $(echo "$out" | grep -E '^(E|W):' | head -2 | tr '\n' ' ')"; fi
deb=$(ls "$apt"/deb/nats-server_*.deb 2>/dev/null | head -1)
if [ -z "$deb" ]; then fallback "no .deb downloaded"; fi
if ! dpkg -x "$deb" "$dest.partial"; then fallback "dpkg -x $deb failed"; fi
got=$(version_of "$dest.partial/usr/sbin/nats-server")
if ! at_least_210 "$got"; then fallback "the downloaded binary reports '${got:-nothing}'"; fi
rm -rf "$dest"
mv "$dest.partial" "$dest"
echo "nats-server $got from Debian trixie: $bin (the managed server from now on)"
