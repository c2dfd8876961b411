#!/usr/bin/env bash
# The Debian packages (cmake/packaging.cmake) as a user gets them:
#   1. builds them from BUILD_DIR (its `package` target: cpack, into
#      BUILD_DIR/packages);
#   2. checks each one's control fields (names, versions, dependencies, the
#      runtime's shlibs and ldconfig trigger) and files (the soname links);
#   3. unpacks them into a throwaway root with `dpkg -x`, the way apt would lay
#      them out in /, and builds and runs docs/README.md's first host against
#      that root: with pkg-config (PKG_CONFIG_LIBDIR into the root; dml.pc
#      finds its prefix from its own place) and with find_package(dml)
#      (CMAKE_FIND_ROOT_PATH re-rooting /usr, nothing outside the root
#      searched); then the root's dmlinfo, which must find the root's plugins;
#   4. lintian on the packages, when installed (errors fail the stage, except
#      the ones docs/building.md lists with the reason).
# The packages install to /usr and say so in their files (dml.pc's prefix is
# relative to itself; the CMake package's too): the test re-roots, it never
# edits an unpacked file. Outside an installed system nothing adds the root's
# lib/ to the loader's path, so the host runs with LD_LIBRARY_PATH there (what
# ldconfig does for /usr/lib once the packages are installed).
# Without dpkg-deb it prints "SKIPPED (...)" and exits 0 (run-all.sh goes on).
#
# Usage: tests/run-packages.sh [BUILD_DIR]   (default: <repo>/build, already built)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
start=$SECONDS

for tool in dpkg-deb dpkg cpack pkg-config; do
  if ! command -v "$tool" >/dev/null; then
    echo "run-packages: SKIPPED (the packages were not tested): $tool not found"; exit 0
  fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/dml-packages.XXXXXX")
trap '[ -n "${DML_KEEP_WORK:-}" ] || rm -rf "$work"' EXIT INT TERM
fail() { echo "run-packages: FAILED: $*" >&2; exit 1; }

# ---- 1. build ----------------------------------------------------------------
rm -rf "$build/packages"
# The documented command: it re-runs CMake first when a CMake file changed
# (a bare cpack would read the CPackConfig.cmake of the last configure).
cmake --build "$build" -j "$(nproc)" --target package >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cmake --build $build --target package"; }
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
[ -n "$version" ] || fail "no CPACK_PACKAGE_VERSION in $build/CPackConfig.cmake"
arch=$(dpkg --print-architecture)
deb() { echo "$build/packages/$1_$version-1_$arch.deb"; }
runtime=$(deb libdml1) dev=$(deb libdml-dev) tools=$(deb dml-tools)
for p in "$runtime" "$dev" "$tools"; do [ -f "$p" ] || fail "no $(basename "$p") (built: $(ls "$build/packages"))"; done
echo "built $(cd "$build/packages" && ls ./*.deb | tr '\n' ' ')"

# ---- 2. control fields and files -----------------------------------------------
# (Outputs are read from files or variables: a pipe into grep -q can fail by
# SIGPIPE under pipefail.)
field() { dpkg-deb -f "$1" "$2"; }
expect_field() { # PACKAGE FIELD PATTERN
  local value; value=$(field "$1" "$2")
  grep -Eq -- "$3" <<< "$value" || fail "$(basename "$1"): $2 is '$value', expected /$3/"
}
for p in "$runtime" "$dev" "$tools"; do
  expect_field "$p" Version "^$version-1\$"
  expect_field "$p" Maintainer '.+ <.+@.+>'
  [ "$(field "$p" Description | wc -l)" -gt 1 ] || fail "$(basename "$p"): no extended description"
  name=$(field "$p" Package)
  dpkg-deb -c "$p" > "$work/$name.txt"
  grep -q "/usr/share/doc/$name/copyright\$" "$work/$name.txt" || fail "$name: no copyright file"
done
expect_field "$runtime" Section '^libs$'
expect_field "$runtime" Depends 'libc6'
expect_field "$dev" Depends "^libdml1 \\(= $version-1\\)\$"
expect_field "$tools" Depends "libdml1 \\(= $version-1\\)"
shlibs=$(dpkg-deb -I "$runtime" shlibs) triggers=$(dpkg-deb -I "$runtime" triggers)
[ "$shlibs" = "libdml 1 libdml1 (>= $version)" ] || fail "libdml1's shlibs: $shlibs"
[ "$triggers" = "activate-noawait ldconfig" ] || fail "libdml1's triggers: $triggers"

# Contents: the soname link in the runtime, the development link in -dev, nothing of one in the other.
has() { grep -Eq -- "$2" "$work/$1.txt" || fail "$1 lacks $2: $(awk '{print $6, $7, $8}' "$work/$1.txt")"; }
lacks() { ! grep -Eq -- "$2" "$work/$1.txt" || fail "$1 holds $2"; }
has libdml1 "/libdml\\.so\\.1 -> libdml\\.so\\.$version\$"
has libdml1 "/libdml\\.so\\.$version\$"
has libdml1 '/dml/libdml_cpu\.so$'
lacks libdml1 '/libdml\.so( |$)'
lacks libdml1 'cudaemu'
has libdml-dev '/libdml\.so -> libdml\.so\.1$'
has libdml-dev '/include/dml/dml\.h$'
has libdml-dev '/pkgconfig/dml\.pc$'
has libdml-dev '/cmake/dml/dmlConfig\.cmake$'
lacks libdml-dev '/libdml\.so\.1'
for t in dmlinfo dmlrun dmlbench dmlcoalesce; do has dml-tools "/usr/bin/$t\$"; done
echo "control fields and contents as expected"

# ---- 3. the first host against the unpacked root ------------------------------------
sysroot=$work/root
for p in "$runtime" "$dev" "$tools"; do dpkg -x "$p" "$sysroot"; done
pcdir=$(dirname "$(find "$sysroot" -name dml.pc | head -n 1)")
libdir=$(dirname "$pcdir")
awk -v LANG=c -v EXT=c -v OUT="$work" -v DOC=README -f "$root/tests/docs/extract_examples.awk" \
  "$root/docs/README.md" > "$work/examples.txt"
host_c=$(head -n 1 "$work/examples.txt" | cut -d' ' -f2)
[ -f "$host_c" ] || fail "no C example in docs/README.md"
unset DML_BACKEND DML_PLUGIN_PATH
run_host() { # NAME EXECUTABLE: runs it on the root's runtime, which it must have loaded
  LD_LIBRARY_PATH=$libdir "$2" > "$work/$1.out" || { cat "$work/$1.out"; fail "the first host ($1) failed"; }
  LD_LIBRARY_PATH=$libdir ldd "$2" > "$work/$1.ldd"   # (not piped into grep -q: pipefail and SIGPIPE)
  grep -q "libdml.so.1 => $libdir/" "$work/$1.ldd" || fail "the first host ($1) did not load the root's libdml.so.1: $(cat "$work/$1.ldd")"
}

# pkg-config: only the root's dml.pc is visible. Its paths come from its place
# (${pcfiledir}), so PKG_CONFIG_SYSROOT_DIR is not needed.
export PKG_CONFIG_LIBDIR=$pcdir PKG_CONFIG_PATH=
case "$(pkg-config --variable=libdir dml)" in "$sysroot"/*) ;; *) fail "dml.pc's libdir is outside the root" ;; esac
libs=$(pkg-config --libs dml)
[[ $libs != *rpath* ]] || fail "the packaged dml.pc adds an rpath: $libs"
cc -std=c11 -Wall -Wextra -Werror -o "$work/host_pc" "$host_c" $(pkg-config --cflags --libs dml)
run_host pkg-config "$work/host_pc"

# find_package(dml): the package's /usr re-rooted into the unpacked tree.
mkdir "$work/consumer"
cp "$host_c" "$work/consumer/host.c"
cat > "$work/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(dml_first_host C)
find_package(dml 1.0 REQUIRED CONFIG)
message(STATUS "dml_DIR=${dml_DIR}")
add_executable(host host.c)
target_link_libraries(host PRIVATE dml::dml)
CMAKE
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_FIND_ROOT_PATH="$sysroot" \
  -DCMAKE_FIND_ROOT_PATH_MODE_PACKAGE=ONLY > "$work/consumer.log" 2>&1 \
  || { cat "$work/consumer.log"; fail "find_package(dml) in the root does not configure"; }
grep -q "dml_DIR=$sysroot/usr/" "$work/consumer.log" || fail "find_package(dml) found no package in the root: $(grep dml_DIR "$work/consumer.log")"
cmake --build "$work/consumer/build" > "$work/consumer-build.log" 2>&1 \
  || { cat "$work/consumer-build.log"; fail "find_package(dml) host does not build"; }
run_host find_package "$work/consumer/build/host"
echo "the first host of docs/README.md builds and runs against the packages (pkg-config, find_package)"

# The tools find the runtime next to them and the plugins next to it.
"$sysroot/usr/bin/dmlinfo" > "$work/dmlinfo.txt" || { cat "$work/dmlinfo.txt"; fail "the root's dmlinfo failed"; }
grep -q "$libdir/dml/libdml_cpu.so" "$work/dmlinfo.txt" || fail "dmlinfo did not load the root's cpu plugin: $(cat "$work/dmlinfo.txt")"

# ---- 4. lintian ------------------------------------------------------------------
# Errors fail the stage; the warnings it gives are listed, with the reason, in
# docs/building.md ("Debian packages").
if command -v lintian >/dev/null; then
  as_root=(); [ "$(id -u)" -ne 0 ] || as_root=(--allow-root)
  lintian "${as_root[@]}" --fail-on error "$runtime" "$dev" "$tools" > "$work/lintian.txt" 2>&1 \
    || { cat "$work/lintian.txt"; fail "lintian reports errors"; }
  echo "lintian: no errors, $(grep -c '^W:' "$work/lintian.txt" || true) warnings (tags: $(sed -n 's/^W: [^:]*: \([^ ]*\).*/\1/p' "$work/lintian.txt" | sort -u | tr '\n' ' '))"
else
  echo "lintian not installed: not run (apt-get install lintian)"
fi
echo "run-packages: OK ($((SECONDS - start)) s)"
