#!/usr/bin/env bash
# The Python package's suite (python/tests) in a venv under BUILD_DIR/py-venv:
# numpy and, where the CUDA 13 toolkit is, PyTorch from PyPI (CuPy is used when
# already importable there),
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
# Usage: tests/run-python.sh [--prepare] [BUILD_DIR]   (default: <repo>/build)
#   --prepare: only create the venv (run-all.sh does it while the build compiles).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prepare=0
[ "${1:-}" = --prepare ] && { prepare=1; shift; }
build=${1:-$root/build}
mkdir -p "$build"
build=$(cd "$build" && pwd) # the suite runs from elsewhere
venv=$build/py-venv

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
# PyTorch, for the DLPack exchanges of python/tests (test_api.py, test_dml.py).
# PyPI's Linux torch wheel is a CUDA 13 build (there is no CPU build on PyPI);
# where the CUDA 13 toolkit is installed (this project's build machines), it
# imports against the toolkit's libraries (cuBLAS, cuDNN, ...) with four of
# NVIDIA's wheels the toolkit lacks or has older (cuFile, cuSPARSELt, NVSHMEM,
# NCCL), all --no-deps: 1.2 GB, about 30 s on the 2-core CI VM. Elsewhere, or
# when it does not import, its cases are skipped and the reason printed.
torch_env=()
cuda_lib=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -e "$d/libcublas.so.13" ] && [ -e "$d/libcudnn.so.9" ] && { cuda_lib=$d; break; }
done
if [ -n "$cuda_lib" ]; then
  torch_env=(LD_LIBRARY_PATH="$cuda_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  if ! env "${torch_env[@]}" "$venv/bin/python" -c 'import torch' 2>/dev/null; then
    echo "run-python: installing PyTorch's wheel for the DLPack cases (CUDA 13 libraries from $cuda_lib)"
    "$venv/bin/pip" install -q --disable-pip-version-check --no-deps torch==2.15.0 nvidia-cufile==1.20.0.107 \
      nvidia-cusparselt-cu13==0.10.0 nvidia-nvshmem-cu13==3.8.0 nvidia-nccl-cu13==2.32.3 \
      >"$build/py-venv-torch.log" 2>&1 &&
      "$venv/bin/pip" install -q --disable-pip-version-check typing-extensions filelock fsspec jinja2 networkx \
        sympy 'setuptools>=77' >>"$build/py-venv-torch.log" 2>&1 || true
  fi
fi
[ "$prepare" = 0 ] || exit 0
if ! env "${torch_env[@]}" "$venv/bin/python" -c 'import torch' 2>>"$build/py-venv-torch.log"; then
  echo "run-python: PyTorch cases skipped: torch does not import in $venv (it needs the CUDA 13 toolkit's libraries; see $build/py-venv-torch.log)"
  torch_env=()
fi

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target dml dml_cpu dml_cudaemu dmlinfo >/dev/null
# The package from the source tree (python/ on PYTHONPATH): `pip install
# ./python` builds the whole runtime again (scikit-build-core), which stage 2
# does as a user would. An install left by an older run would shadow nothing
# (PYTHONPATH comes first) but is removed.
"$venv/bin/pip" uninstall -y -q --disable-pip-version-check dml >/dev/null 2>&1 || true
export PYTHONPATH="$root/python"

# Run from outside the source tree.
cd "$build"
echo "run-python: against $build/lib/libdml.so.1 (cpu, cudaemu)"
env -u DML_BACKEND -u DML_PLUGIN_PATH "${torch_env[@]}" DML_LIBRARY="$build/lib/libdml.so.1" \
  DML_PYTHON_TEST_BACKENDS=cpu,cudaemu "$venv/bin/python" -m unittest discover -s "$root/python/tests" -t "$root/python/tests"

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
