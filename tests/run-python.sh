#!/usr/bin/env bash
# The Python package's suite (python/tests) in a venv under BUILD_DIR/py-venv:
# numpy from PyPI (PyTorch and CuPy are used when already importable there;
# PyTorch is not installed, see below),
# the package installed with `pip install ./python`, run twice:
#   1. against BUILD_DIR's libdml.so.1 (DML_LIBRARY), on "cpu" and the emulated
#      CUDA backend "cudaemu" (and "cuda" tensors when PyTorch/CuPy see a GPU);
#   then every ```python example of docs/;
#   2. against the runtime installed into the venv's own prefix (cmake --install),
#      found without DML_LIBRARY, on "cpu" (cudaemu is not installed).
# When numpy cannot be installed it prints "SKIPPED (the suite did not run): why"
# and exits 0 (not a CTest test: run-all.sh goes on).
#
# Usage: tests/run-python.sh [BUILD_DIR]   (default: <repo>/build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
mkdir -p "$build"
build=$(cd "$build" && pwd) # the suite runs from elsewhere
venv=$build/py-venv

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target dml dml_cpu dml_cudaemu >/dev/null

if ! command -v python3 >/dev/null; then
  echo "run-python: SKIPPED (the suite did not run): python3 not found"; exit 0
fi
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import numpy' 2>/dev/null; then
  rm -rf "$venv"
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    echo "run-python: SKIPPED (the suite did not run): python3 -m venv failed (install python3-venv: .ci/install-deps)"
    rm -rf "$venv"; exit 0
  fi
  if ! "$venv/bin/pip" install -q --disable-pip-version-check numpy >"$build/py-venv-pip.log" 2>&1; then
    echo "run-python: SKIPPED (the suite did not run): pip could not install numpy (see $build/py-venv-pip.log)"
    rm -rf "$venv"; exit 0
  fi
fi
# PyTorch: its cases (python/tests/test_api.py, test_dml.py) run when it is
# importable here; it is not installed: PyPI's Linux torch wheel (539 MB,
# torch 2.15) does not import without NVIDIA's CUDA wheels (with --no-deps:
# "libcufile.so.0: cannot open shared object file"), gigabytes more, and its
# CPU build is not on PyPI (measured on the 2-core CI VM: 36 s for the wheel
# alone, then the failed import).
if ! "$venv/bin/python" -c 'import torch' 2>/dev/null; then
  echo "run-python: PyTorch cases skipped: torch is not importable in $venv (PyPI's Linux wheel needs NVIDIA's CUDA wheels, gigabytes; its CPU build is not on PyPI)"
fi
# The package itself, as a user installs it, from a copy: pip builds in the
# directory it is given (build/, *.egg-info), and the source tree stays clean.
rm -rf "$build/py-src" && cp -r "$root/python" "$build/py-src"
"$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps "$build/py-src" \
  >"$build/py-venv-install.log" 2>&1 || { cat "$build/py-venv-install.log"; exit 1; }

# Run from outside the source tree, so that the installed package is imported.
cd "$build"
echo "run-python: against $build/lib/libdml.so.1 (cpu, cudaemu)"
env -u DML_BACKEND -u DML_PLUGIN_PATH DML_LIBRARY="$build/lib/libdml.so.1" \
  "$venv/bin/python" -m unittest discover -s "$root/python/tests" -t "$root/python/tests"

# Every ```python example of docs/ (tests/docs/extract_examples.awk), as a user runs it.
examples=$build/py-doc-examples
rm -rf "$examples" && mkdir -p "$examples"
for doc in "$root"/docs/*.md; do
  awk -v LANG=python -v EXT=py -v OUT="$examples" -v DOC="$(basename "$doc" .md)" \
    -f "$root/tests/docs/extract_examples.awk" "$doc" > "$examples/list-$(basename "$doc" .md).txt"
done
for example in "$examples"/*.py; do
  [ -e "$example" ] || continue
  echo "run-python: docs example $(basename "$example")"
  env -u DML_BACKEND -u DML_PLUGIN_PATH DML_LIBRARY="$build/lib/libdml.so.1" "$venv/bin/python" "$example"
done

cmake --install "$build" --prefix "$venv" >/dev/null
echo "run-python: against the runtime installed into $venv (found without DML_LIBRARY; cpu)"
env -u DML_BACKEND -u DML_PLUGIN_PATH -u DML_LIBRARY DML_PYTHON_TEST_BACKENDS=cpu \
  "$venv/bin/python" -c 'import dml, dml._lib as l; print("run-python: loaded", l.lib._name)'
env -u DML_BACKEND -u DML_PLUGIN_PATH -u DML_LIBRARY DML_PYTHON_TEST_BACKENDS=cpu \
  "$venv/bin/python" -m unittest discover -s "$root/python/tests" -t "$root/python/tests"
