#!/usr/bin/env bash
# Builds the project and runs every test three ways:
#   1. the normal build (RelWithDebInfo), every CTest test, then the GPU
#      validation kit's dry run on it (tests/gpu/run-on-device.sh);
#   2. an ASan+UBSan build (-DDML_SANITIZE=ON), every CTest test;
#   3. the normal build's suites under valgrind memcheck (CTest label "valgrind");
# and, on the normal build, random ONNX cases against onnxruntime and the
# Python package's suite (tests/run-python.sh), the Debian packages
# (tests/run-packages.sh) and the TensorFlow plugin (tests/run-tensorflow.sh); then the
# libFuzzer targets (tests/run-fuzz.sh) and a ThreadSanitizer build of the
# concurrency suite (tests/run-tsan.sh). Valgrind last: its summary closes the run.
# Build trees: build/ and build-asan/ at the repository root.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)

# Each stage's heading says how long the run has taken so far (CI must stay
# under 25 minutes; this is where to look when it does not).
start=$SECONDS
step() { printf '\n==== [%dm%02ds] %s\n' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)) "$*"; }

step "normal build (the later stages' Python venvs install meanwhile: build/venvs.log)"
# onnxruntime's, the Python suite's (numpy, PyTorch) and TensorFlow's venvs
# download and unpack while the build compiles: network time, which came
# after the build and took minutes. Each stage re-checks its venv and says
# SKIPPED, as before, when it is still missing.
# At the lowest priority, so that the compilers keep both cores (at the same
# priority the build and its tests took 50 s longer in one run, 25 s at this
# one); in its own process group, which a failed run ends (no pip left
# writing a venv).
mkdir -p "$root/build"
setsid nice -n 19 bash -c 'for stage in run-conformance-ort.sh run-python.sh run-tensorflow.sh; do
  "$1/tests/$stage" --prepare "$1/build" || echo "$stage --prepare: exit $?"; done' venvs "$root" \
  >"$root/build/venvs.log" 2>&1 &
venvs=$!
trap 'kill -- -"$venvs" 2>/dev/null || true' EXIT
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j "$jobs"
ctest --test-dir "$root/build" --output-on-failure -j "$jobs" -LE valgrind

step "GPU validation kit, dry run (tests/gpu/run-on-device.sh on build/; GPU stages skip without a GPU)"
OUT="$root/build/gpu-kit" DML_GPU_BUILD_DIR="$root/build" "$root/tests/gpu/run-on-device.sh"

step "the Python venvs (build/venvs.log)"
wait "$venvs" || true
cat "$root/build/venvs.log"

step "conformance against onnxruntime (skipped where it cannot be installed)"
DML_ORT_SECONDS=${DML_ORT_SECONDS:-60} "$root/tests/run-conformance-ort.sh" "$root/build"

step "Python package (python/tests in a venv with numpy; skipped where numpy cannot be installed)"
# The wheel's CUDA plugin as PTX for one architecture here (the stage's time
# is nvcc's, and ptxas was half of it; a user's wheel gets SASS for
# DML_CUDA_ARCHITECTURES' three, which the normal build compiles and checks).
DML_WHEEL_CUDA_ARCHITECTURES=${DML_WHEEL_CUDA_ARCHITECTURES:-80-virtual} "$root/tests/run-python.sh" "$root/build"

step "Debian packages (cpack; the first host against them with pkg-config and find_package; skipped without dpkg-deb)"
"$root/tests/run-packages.sh" "$root/build"

step "TensorFlow plugin (hosts/tensorflow against TensorFlow's CPU kernels; skipped where tensorflow-cpu cannot be installed)"
"$root/tests/run-tensorflow.sh" "$root/build"

step "ASan + UBSan build"
# The CUDA plugin's kernels as PTX for one architecture: no sanitized test
# runs them here or reads their SASS (the normal build compiles and checks all
# of them; nvcc's objects are not instrumented); nvcc for three architectures
# was minutes of this stage, and ptxas half of one.
cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=Debug -DDML_SANITIZE=ON -DDML_CUDA_ARCHITECTURES=80-virtual >/dev/null
cmake --build "$root/build-asan" -j "$jobs"
ctest --test-dir "$root/build-asan" --output-on-failure -j "$jobs" -LE valgrind

step "fuzzing (libFuzzer, clang, 60 s per target)"
"$root/tests/run-fuzz.sh"

step "ThreadSanitizer (concurrency suite)"
"$root/tests/run-tsan.sh"

step "valgrind memcheck"
ctest --test-dir "$root/build" --output-on-failure -j "$jobs" -L valgrind
step "done"
