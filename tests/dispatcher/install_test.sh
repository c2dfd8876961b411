#!/bin/sh
# install_test.sh CMAKE BUILD_DIR CC SOURCE_DIR [CFLAGS] — installs the build tree
# into a temporary prefix, moves that prefix elsewhere, and checks the moved
# tree works: its layout, its tools, and host_example.c built with
# pkg-config and with find_package(dml), each run with no LD_LIBRARY_PATH:
# the rpath that dml.pc (and CMake, for the consumer's build tree and, with
# CMAKE_INSTALL_RPATH_USE_LINK_PATH, its install) puts in the host must find
# libdml.so.1 in the moved prefix. CFLAGS (e.g. the sanitizer flags the tree
# was built with) go to both host builds.
set -eu
unset LD_LIBRARY_PATH
cmake=$1 build=$2 cc=$3 src=$4 cflags=${5:-}

work=$(mktemp -d "${TMPDIR:-/tmp}/dml-install.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
fail() { echo "install_test: $*" >&2; exit 1; }

"$cmake" --install "$build" --prefix "$work/staged" >/dev/null
mv "$work/staged" "$work/moved"
prefix=$work/moved
echo "installed, then moved to $prefix"

pc=$(find "$prefix" -name dml.pc | head -n 1)
[ -n "$pc" ] || fail "no dml.pc installed"
export PKG_CONFIG_PATH=$(dirname "$pc")
# pkg-config reports ${pcfiledir}-relative paths: they must lie in the moved tree.
libdir=$(cd "$(pkg-config --variable=libdir dml)" && pwd -P) || fail "pkg-config libdir does not exist"
prefix=$(cd "$prefix" && pwd -P)
case $libdir in "$prefix"/*) ;; *) fail "pkg-config libdir $libdir is not in $prefix" ;; esac

for f in include/dml/dml.h include/dml/dml_plugin.h bin/dmlinfo bin/dmlrun bin/dmlbench bin/dmlcoalesce; do
    [ -e "$prefix/$f" ] || fail "missing $f"
done
for f in libdml.so libdml.so.1 dml/libdml_cpu.so cmake/dml/dmlConfig.cmake cmake/dml/dmlConfigVersion.cmake \
         cmake/dml/dmlTargets.cmake; do
    [ -e "$libdir/$f" ] || fail "missing $libdir/$f"
done

# The tools find libdml.so through $ORIGIN and the plugins next to it.
"$prefix/bin/dmlinfo" > "$work/dmlinfo.txt" || fail "dmlinfo failed: $(cat "$work/dmlinfo.txt")"
grep -q "$libdir/dml/libdml_cpu.so" "$work/dmlinfo.txt" || fail "dmlinfo did not use the moved plugin: $(cat "$work/dmlinfo.txt")"
grep -q "Selected backend: cpu" "$work/dmlinfo.txt" || fail "dmlinfo selected no cpu backend"
"$prefix/bin/dmlrun" --examples > "$work/dmlrun.txt" || fail "dmlrun --examples failed: $(cat "$work/dmlrun.txt")"
for tool in dmlinfo dmlrun dmlbench dmlcoalesce; do
    "$prefix/bin/$tool" --help > "$work/help.txt" || fail "$tool --help failed"
    grep -q "^usage: $tool " "$work/help.txt" || fail "$tool --help printed no usage"
done
# dmlbench links libdml.so through its own rpath: one tiny case runs.
"$prefix/bin/dmlbench" --case reverse_inner --size 4K --type-size 4 --repetitions 1 --warmup 0 > "$work/bench.txt" \
    || fail "moved dmlbench failed: $(cat "$work/bench.txt")"
echo "moved tools work"

# pkg-config: its Libs carry the rpath, nothing else is needed.
pkg-config --libs dml | grep -q -- "-Wl,-rpath," || fail "dml.pc has no rpath: $(pkg-config --libs dml)"
"$cc" -std=c11 -Wall -Wextra -Werror $cflags -o "$work/host_pc" "$src/host_example.c" $(pkg-config --cflags --libs dml)
"$work/host_pc" || fail "host_example (pkg-config) failed"

# find_package(dml) + dml::dml.
mkdir "$work/consumer"
cp "$src/host_example.c" "$work/consumer/"
cat > "$work/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(dml_consumer C)
find_package(dml 1.0 REQUIRED)
add_executable(host_example host_example.c)
target_link_libraries(host_example PRIVATE dml::dml)
# The installed host keeps an rpath to libdml.so's directory (docs/building.md).
set_target_properties(host_example PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS host_example)
CMAKE
"$cmake" -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_INSTALL_PREFIX="$work/consumer-installed" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" >/dev/null || fail "find_package(dml) project does not configure"
"$cmake" --build "$work/consumer/build" >/dev/null || fail "find_package(dml) project does not build"
"$work/consumer/build/host_example" || fail "host_example (find_package, build tree) failed"
"$cmake" --install "$work/consumer/build" >/dev/null || fail "find_package(dml) project does not install"
"$work/consumer-installed/bin/host_example" || fail "host_example (find_package, installed) failed"
echo "install_test: OK"
