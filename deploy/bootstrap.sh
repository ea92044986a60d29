#!/usr/bin/env bash
# Installs what is missing on a Debian machine, then runs the pipeline
# (`bootstrap.sh start`) or the whole test suite (`bootstrap.sh test`).
# Needs only an old Node and npm: Node 24 comes from the npm registry
# (the `node` package) and npm scripts put it first on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-start}"
case "$mode" in start|test|bench) ;; *) echo "usage: bootstrap.sh start|test|bench" >&2; exit 2 ;; esac

# Debian packages: nats-server (bookworm's 2.9.10, the fallback of the 2.10 fetched below), openssh-client for the monitor role's SSH tunnels (neura checks) and
# libnotify-bin for the desktop service's toasts (notify-send), always; for tests also the servers the
# probe tests start (openssh-server for the tunnel test), git, and for the desktop tests a private
# session bus and the test's notification server (dbus, python3-dbus, python3-gi), and chromium (the
# console's browser tests drive it through playwright-core).
pkgs=(nats-server openssh-client libnotify-bin)
if [ "$mode" = test ]; then pkgs+=(postgresql mariadb-server redis-server iputils-ping git openssh-server dbus python3-dbus python3-gi chromium); fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  echo "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  # policy-rc.d keeps the packages' own services from starting: tests start their own on loopback.
  DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# nats-server 2.10 from Debian trixie into tools/ (fsync on every write; the bookworm
# 2.9.10 installed above stays the fallback when it cannot be fetched): deploy/fetch-nats.sh.
bash deploy/fetch-nats.sh

# npm packages (with Node 24 itself) when missing or older than the lockfile.
if [ ! -x node_modules/.bin/node ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

# The web console (console/): bundled by esbuild into console/dist, which a fresh clone does not have.
# The server also builds it at start when missing or older than its sources; building here first
# makes a broken build fail loudly before anything runs.
PATH="$PWD/node_modules/.bin:$PATH" node console/build.ts

case "$mode" in
  start) exec npm start ;;
  # The whole suite in two lanes on the two cores. Lane 2, one file at a time: the fault tests
  # (deploy/README.md), then the desktop's tests (the portal files each a cloud and a desktop
  # process pair); they mostly wait out fault windows, sync rounds and process starts, which
  # lane 1's CPU work fills. Lane 1 is `npm test` without the desktop files, two at a time. The
  # lanes are balanced by the files' times in CI (README "Tests"). Either lane failing fails the
  # command. The servers installed above are then required: a test that cannot find one fails
  # instead of skipping.
  test)
    export LOOKOUT_TEST_REQUIRE_SERVERS=1
    lane_log=$(mktemp)
    { npm run test:faults && npm run test:desktop; } >"$lane_log" 2>&1 &
    lane=$!
    suite=0; npm test -- --exclude='test/desktop/**' || suite=$?
    lane_exit=0; wait "$lane" || lane_exit=$?
    echo "== lane 2: the fault suite, then the desktop tests (npm run test:faults, npm run test:desktop) =="
    cat "$lane_log"; rm -f "$lane_log"
    echo "lane 1 (npm test without the desktop files): exit $suite; lane 2: exit $lane_exit"
    [ "$suite" -eq 0 ] && [ "$lane_exit" -eq 0 ] ;;
  bench) exec npm run bench ;;
esac
