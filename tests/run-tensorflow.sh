#!/usr/bin/env bash
# The TensorFlow plugin (hosts/tensorflow) against TensorFlow's own CPU kernels
# (hosts/tensorflow/tests): a venv in BUILD_DIR/tf-venv with tensorflow-cpu from
# PyPI (DML_TF_VENV names an existing venv that has it instead), the plugin
# built against it in BUILD_DIR, then one process per backend, "cpu" and the
# emulated CUDA backend "cudaemu" (importing TensorFlow takes seconds: one
# import per backend, every test in it), TensorFlow loading the plugin from
# BUILD_DIR/lib/tensorflow-plugins through TF_PLUGGABLE_DEVICE_LIBRARY_PATH.
# When TensorFlow cannot be installed it prints "SKIPPED (the suite did not
# run): why" and exits 0 (not a CTest test: run-all.sh goes on). Then it runs
# the suite on cpu with the plugin built with ASan + UBSan, docs/tensorflow.md's
# example, and TensorFlow with the plugin but no runtime.
#
# Usage: tests/run-tensorflow.sh [--prepare] [BUILD_DIR]   (default: <repo>/build)
#   --prepare: only create the venv (run-all.sh does it while the build compiles).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prepare=0
[ "${1:-}" = --prepare ] && { prepare=1; shift; }
build=${1:-$root/build}
mkdir -p "$build"
build=$(cd "$build" && pwd)
venv=${DML_TF_VENV:-$build/tf-venv}
skip() { echo "run-tensorflow: SKIPPED (the suite did not run): $*"; exit 0; }

command -v python3 >/dev/null || skip "python3 not found"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import importlib.util as u; assert u.find_spec("tensorflow")' 2>/dev/null; then
  [ -z "${DML_TF_VENV:-}" ] || skip "DML_TF_VENV=$DML_TF_VENV has no tensorflow"
  rm -rf "$venv"
  python3 -m venv "$venv" >/dev/null 2>&1 || { rm -rf "$venv"; skip "python3 -m venv failed (install python3-venv: .ci/install-deps)"; }
  if ! "$venv/bin/pip" install -q --disable-pip-version-check tensorflow-cpu >"$build/tf-venv-pip.log" 2>&1; then
    rm -rf "$venv"; skip "pip could not install tensorflow-cpu (see $build/tf-venv-pip.log)"
  fi
fi
[ "$prepare" = 0 ] || exit 0

# Configure with this venv's TensorFlow (hosts/tensorflow/CMakeLists.txt finds its headers).
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDML_TENSORFLOW_PYTHON="$venv/bin/python" >/dev/null
else
  cmake -S "$root" -B "$build" -DDML_TENSORFLOW_PYTHON="$venv/bin/python" >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target dml dml_cpu dml_cudaemu dml_tensorflow >/dev/null
plugin=$build/lib/tensorflow-plugins/libdml_tensorflow.so
[ -f "$plugin" ] || { echo "run-tensorflow: $plugin was not built" >&2; exit 1; }

cd "$build"
for backend in ${DML_TF_TEST_BACKENDS:-cpu cudaemu}; do
  echo "run-tensorflow: backend $backend"
  start=$(date +%s)
  env -u DML_PLUGIN_PATH DML_BACKEND="$backend" TF_PLUGGABLE_DEVICE_LIBRARY_PATH="$plugin" \
    DML_TF_TEST_LOG="$build/tensorflow-$backend.log" "$venv/bin/python" "$root/hosts/tensorflow/tests/test_tensorflow.py" \
    || { echo "run-tensorflow: failed on $backend; TensorFlow's log: $build/tensorflow-$backend.log" >&2; exit 1; }
  echo "run-tensorflow: backend $backend done in $(( $(date +%s) - start )) s"
done

# The plugin built with ASan and UBSan (the runtime and TensorFlow are not),
# the suite on cpu in a Python with the sanitizer runtimes preloaded. ASan's
# dlopen does not see the plugin's RUNPATH: LD_LIBRARY_PATH finds the runtime.
asan=$(cc -print-file-name=libasan.so 2>/dev/null || true)
ubsan=$(cc -print-file-name=libubsan.so 2>/dev/null || true)
if [ -f "$asan" ] && [ -f "$ubsan" ] && cmake --build "$build" --target dml_tensorflow_sanitized >/dev/null 2>&1; then
  echo "run-tensorflow: backend cpu, the plugin under ASan + UBSan"
  start=$(date +%s)
  env -u DML_PLUGIN_PATH DML_BACKEND=cpu LD_LIBRARY_PATH="$build/lib" LD_PRELOAD="$asan $ubsan" \
    ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    TF_PLUGGABLE_DEVICE_LIBRARY_PATH="$build/lib/tensorflow-plugins-sanitized/libdml_tensorflow.so" \
    DML_TF_TEST_LOG="$build/tensorflow-sanitized.log" "$venv/bin/python" "$root/hosts/tensorflow/tests/test_tensorflow.py" \
    || { echo "run-tensorflow: failed under ASan + UBSan; TensorFlow's log: $build/tensorflow-sanitized.log" >&2; exit 1; }
  echo "run-tensorflow: under ASan + UBSan done in $(( $(date +%s) - start )) s"
else
  echo "run-tensorflow: the ASan + UBSan pass skipped (no libasan/libubsan, or the sanitized plugin did not build)"
fi

# docs/tensorflow.md's example (its ```py block), as a user runs it, on cpu:
# its placement log must show the Pad of its tf.function on DML:0.
example=$build/tensorflow-doc-example.py
awk '/^```py$/ { inside = 1; next } /^```$/ { inside = 0 } inside' "$root/docs/tensorflow.md" > "$example"
env -u DML_PLUGIN_PATH DML_BACKEND=cpu TF_PLUGGABLE_DEVICE_LIBRARY_PATH="$plugin" TF_CPP_MIN_LOG_LEVEL=2 \
  "$venv/bin/python" "$example" > "$build/tensorflow-doc-example.log" 2>&1 \
  || { cat "$build/tensorflow-doc-example.log" >&2; exit 1; }
grep -q "^Pad: (Pad): .*device:DML:0" "$build/tensorflow-doc-example.log" \
  || { echo "run-tensorflow: docs/tensorflow.md's example: no Pad on DML:0 in its placement log" >&2; exit 1; }
echo "run-tensorflow: docs/tensorflow.md example ran (Pad placed on DML:0)"

# Without a runtime (the plugin alone in a folder: its RUNPATH finds no
# libdml.so.1) TensorFlow still imports and works, and the plugin says why
# it has no device.
lonely=$build/tensorflow-plugin-alone
rm -rf "$lonely" && mkdir -p "$lonely" && cp "$plugin" "$lonely/"
env -u DML_PLUGIN_PATH -u LD_LIBRARY_PATH TF_PLUGGABLE_DEVICE_LIBRARY_PATH="$lonely/libdml_tensorflow.so" TF_CPP_MIN_LOG_LEVEL=2 \
  "$venv/bin/python" -c 'import tensorflow as tf; assert not tf.config.list_physical_devices("DML"); assert tf.reverse(tf.constant([1, 2]), [0]).numpy().tolist() == [2, 1]' \
  > "$build/tensorflow-alone.log" 2>&1 || { cat "$build/tensorflow-alone.log" >&2; exit 1; }
grep -q "no DML device: cannot load the runtime: libdml.so.1" "$build/tensorflow-alone.log" \
  || { echo "run-tensorflow: the plugin without a runtime did not say why" >&2; cat "$build/tensorflow-alone.log" >&2; exit 1; }
echo "run-tensorflow: without a runtime, TensorFlow works and the plugin says: $(grep -o 'no DML device: cannot load the runtime[^(]*' "$build/tensorflow-alone.log")"
