#!/usr/bin/env bash
# Differential conformance run against onnxruntime: random ONNX ReverseSequence, Slice,
# Concat, Split, Pad, Tile, DepthToSpace, SpaceToDepth, Cast, CastLike,
# ConstantOfShape, Range and Expand nodes run by onnxruntime (CPU) and by this runtime
# ("cpu" and "cudaemu") through the C mapping tests/conformance/onnx_to_dml.c
# (libdml_conformance.so, via ctypes; tests/conformance/ort_differential.py). Bounded: at most DML_ORT_CASES cases (default 60000) or DML_ORT_SECONDS
# seconds (default 90). DML_ORT_SEED picks the seed (default 1; "random" for a new one).
#
# Usage: tests/run-conformance-ort.sh [--prepare] [BUILD_DIR]   (default: <repo>/build)
#   --prepare: only create the venv (run-all.sh does it while the build compiles).
# Builds the target dml_conformance in BUILD_DIR (configuring it when needed) and
# creates a venv in BUILD_DIR/ort-venv with onnxruntime, onnx and numpy from PyPI.
# When those cannot be installed it prints "SKIPPED (nothing was compared): why"
# and exits 0 (not a CTest test: run-all.sh goes on).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prepare=0
[ "${1:-}" = --prepare ] && { prepare=1; shift; }
build=${1:-$root/build}
venv=$build/ort-venv

if ! command -v python3 >/dev/null; then
  echo "run-conformance-ort: SKIPPED (nothing was compared): python3 not found"; exit 0
fi
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import onnxruntime, onnx, numpy' 2>/dev/null; then
  rm -rf "$venv"
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    echo "run-conformance-ort: SKIPPED (nothing was compared): python3 -m venv failed (install python3-venv: .ci/install-deps)"
    rm -rf "$venv"; exit 0
  fi
  if ! "$venv/bin/pip" install -q --disable-pip-version-check onnxruntime onnx numpy >"$build/ort-venv-pip.log" 2>&1; then
    echo "run-conformance-ort: SKIPPED (nothing was compared): pip could not install onnxruntime/onnx/numpy (see $build/ort-venv-pip.log)"
    rm -rf "$venv"; exit 0
  fi
fi
if ! "$venv/bin/python" -c 'import onnxruntime, onnx, numpy' 2>/dev/null; then
  echo "run-conformance-ort: SKIPPED (nothing was compared): onnxruntime/onnx/numpy do not import in $venv"; exit 0
fi
[ "$prepare" = 0 ] || exit 0

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target dml_conformance dml_cpu dml_cudaemu >/dev/null
lib=$build/tests/libdml_conformance.so
[ -f "$lib" ] || { echo "run-conformance-ort: $lib was not built" >&2; exit 1; }

args=(--lib "$lib" --cases "${DML_ORT_CASES:-60000}" --seconds "${DML_ORT_SECONDS:-90}")
# A fixed seed by default, so CI is reproducible; DML_ORT_SEED=random explores.
seed=${DML_ORT_SEED:-1}
[ "$seed" = random ] || args+=(--seed "$seed")
# The runtime must not pick a backend from the caller's environment.
env -u DML_BACKEND -u DML_PLUGIN_PATH "$venv/bin/python" "$root/tests/conformance/ort_differential.py" "${args[@]}"
