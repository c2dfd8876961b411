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

step "normal build"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j "$jobs"
ctest --test-dir "$root/build" --output-on-failure -j "$jobs" -LE valgrind

step "GPU validation kit, dry run (tests/gpu/run-on-device.sh on build/; GPU stages skip without a GPU)"
OUT="$root/build/gpu-kit" DML_GPU_BUILD_DIR="$root/build" "$root/tests/gpu/run-on-device.sh"

step "conformance against onnxruntime (skipped where it cannot be installed)"
DML_ORT_SECONDS=${DML_ORT_SECONDS:-60} "$root/tests/run-conformance-ort.sh" "$root/build"

step "Python package (python/tests in a venv with numpy; skipped where numpy cannot be installed)"
# The wheel's CUDA plugin for one architecture here (the stage's time is
# nvcc's; a user's wheel gets DML_CUDA_ARCHITECTURES' three).
DML_WHEEL_CUDA_ARCHITECTURES=${DML_WHEEL_CUDA_ARCHITECTURES:-80-real} "$root/tests/run-python.sh" "$root/build"

step "Debian packages (cpack; the first host against them with pkg-config and find_package; skipped without dpkg-deb)"
"$root/tests/run-packages.sh" "$root/build"

step "TensorFlow plugin (hosts/tensorflow against TensorFlow's CPU kernels; skipped where tensorflow-cpu cannot be installed)"
"$root/tests/run-tensorflow.sh" "$root/build"

step "ASan + UBSan build"
# The CUDA plugin's kernels for one architecture: no sanitized test runs them
# here or reads their SASS (the normal build compiles all of them); nvcc for
# three was minutes of this stage.
cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=Debug -DDML_SANITIZE=ON -DDML_CUDA_ARCHITECTURES=80-real >/dev/null
cmake --build "$root/build-asan" -j "$jobs"
ctest --test-dir "$root/build-asan" --output-on-failure -j "$jobs" -LE valgrind

step "fuzzing (libFuzzer, clang, 60 s per target)"
"$root/tests/run-fuzz.sh"

step "ThreadSanitizer (concurrency suite)"
"$root/tests/run-tsan.sh"

step "valgrind memcheck"
ctest --test-dir "$root/build" --output-on-failure -j "$jobs" -L valgrind
step "done"
