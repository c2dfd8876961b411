#!/bin/sh
# install_test.sh CMAKE BUILD_DIR CC SOURCE_DIR [CFLAGS] — installs the build tree
# into a temporary prefix, moves that prefix elsewhere, and checks the moved
# tree works: its layout, its tools, and host_example.c built with
# pkg-config and with find_package(dml). CFLAGS (e.g. the sanitizer flags
# the tree was built with) go to both host builds.
set -eu
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

for f in include/dml/dml.h include/dml/dml_plugin.h bin/dmlinfo bin/dmlrun; do
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
echo "moved tools work"

# pkg-config.
"$cc" -std=c11 -Wall -Wextra -Werror $cflags -o "$work/host_pc" "$src/host_example.c" \
    $(pkg-config --cflags --libs dml) -Wl,-rpath,"$libdir"
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
CMAKE
"$cmake" -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" >/dev/null || fail "find_package(dml) project does not configure"
"$cmake" --build "$work/consumer/build" >/dev/null || fail "find_package(dml) project does not build"
"$work/consumer/build/host_example" || fail "host_example (find_package) failed"
echo "install_test: OK"
