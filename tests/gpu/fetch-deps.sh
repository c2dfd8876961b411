#!/usr/bin/env bash
# fetch-deps.sh — run HERE (a Debian machine where apt works), before borrowing
# a GPU: downloads into .gpu-deps/ (ignored by git) what the bare GPU machine
# lacks to build the test suites: Debian's `check` (Check's headers and static
# libcheck_pic.a) and `libsubunit-dev` (static libsubunit.a, which Check
# needs). Nothing is installed. run-on-device.sh extracts them into
# .gpu-deps/root on the device and points CMake at them (no pkg-config needed
# there); the `run` call carries the folder: carry [".gpu-deps"].
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
deps=$root/.gpu-deps
mkdir -p "$deps"
cd "$deps"
rm -f ./*.deb
apt-get download check libsubunit-dev
# Static libraries only: the device links them into the test programs, so
# nothing needs to be found at run time.
for deb in ./*.deb; do
    dpkg-deb -c "$deb" | grep -E 'lib(check_pic|subunit)\.a$' >/dev/null || { echo "$deb holds no static library" >&2; exit 1; }
done
ls -l "$deps"
