#!/usr/bin/env bash
# The Python package's suite (python/tests) in a venv under BUILD_DIR/py-venv:
# numpy from PyPI (PyTorch and CuPy are used when already importable there),
# run twice:
#   1. the package's source (python/ on PYTHONPATH) against BUILD_DIR's
#      libdml.so.1 (DML_LIBRARY) and dmlinfo, on "cpu" and the emulated
#      CUDA backend "cudaemu" (and "cuda" tensors when PyTorch/CuPy see a GPU);
#   then every ```python example of docs/;
#   2. against the wheel, as a user builds it (tests/run-python-wheel.sh):
#      `pip wheel ./python` of a copy of the tree in a clean venv, installed
#      with numpy into a fresh venv, run with no build tree of ours and no
#      DML_* variables; then again with the wheel's build tree removed.
# When numpy cannot be installed it prints "SKIPPED (the suite did not run): why"
# and exits 0 (not a CTest test: run-all.sh goes on); likewise the wheel stage
# when scikit-build-core cannot be installed.
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
cmake --build "$build" -j "$(nproc)" --target dml dml_cpu dml_cudaemu dmlinfo >/dev/null

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
# The package from the source tree (python/ on PYTHONPATH): `pip install
# ./python` builds the whole runtime again (scikit-build-core), which stage 2
# does as a user would. An install left by an older run would shadow nothing
# (PYTHONPATH comes first) but is removed.
"$venv/bin/pip" uninstall -y -q --disable-pip-version-check dml >/dev/null 2>&1 || true
export PYTHONPATH="$root/python"

# Run from outside the source tree.
cd "$build"
echo "run-python: against $build/lib/libdml.so.1 (cpu, cudaemu)"
env -u DML_BACKEND -u DML_PLUGIN_PATH DML_LIBRARY="$build/lib/libdml.so.1" DML_PYTHON_TEST_BACKENDS=cpu,cudaemu \
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

"$root/tests/run-python-wheel.sh" "$build"
