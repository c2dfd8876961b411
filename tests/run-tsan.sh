#!/usr/bin/env bash
# Builds the library, the plugins and the concurrency suite with
# ThreadSanitizer (build tree build-tsan/) and runs the suite on "cpu" (pool
# threads) and "cudaemu". Any data race fails the run (exit code 66).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-tsan"
jobs=$(nproc)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDML_SANITIZE=OFF \
  -DCMAKE_C_FLAGS="-fsanitize=thread" -DCMAKE_CXX_FLAGS="-fsanitize=thread" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" \
  -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=thread" >/dev/null
cmake --build "$build" -j "$jobs" --target test_concurrency_threads dml_cpu dml_cudaemu
# No fork per case (threads and fork do not mix well under TSan); a race
# makes the process exit 66 at once.
export DML_BACKEND= DML_PLUGIN_PATH= CK_FORK=no CK_DEFAULT_TIMEOUT=300
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
"$build/tests/test_concurrency_threads"
