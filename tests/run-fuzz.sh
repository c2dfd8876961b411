#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan at -O2, build tree
# build-fuzz/), runs each for DML_FUZZ_SECONDS (default 60) starting from
# tests/fuzz/corpus/, then replays the corpus. With one process per target
# (the default) and a core per target, the targets run side by side. New inputs go to
# build-fuzz/fuzz-new/ (not the repo); a crash leaves
# build-fuzz/fuzz-artifacts/crash-* and fails the script: copy it into
# tests/fuzz/corpus/ once fixed, as a regression input.
#
#   DML_FUZZ_SECONDS  how long each target runs (default 60)
#   DML_FUZZ_SEED     libFuzzer's seed (default 1, reproducible; 0: a new one)
#   DML_FUZZ_JOBS     fuzzing processes in parallel (libFuzzer -jobs; default 1)
#
# A campaign on a 2-core machine (SECURITY.md):
#   DML_FUZZ_SECONDS=3600 DML_FUZZ_SEED=0 DML_FUZZ_JOBS=2 tests/run-fuzz.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"
seconds=${DML_FUZZ_SECONDS:-60}
fuzz_jobs=${DML_FUZZ_JOBS:-1}
jobs=$(nproc)
cc=${FUZZ_CC:-clang}
# clang links the sanitizer runtime into executables only; the plugins are
# linked with -z defs, so use the shared runtime everywhere (and find it).
# No CUDA plugin here (nvcc's host compiler would get these flags).
rt=$(dirname "$("$cc" -print-file-name=libclang_rt.asan-x86_64.so)")
flags="-fsanitize=fuzzer-no-link -shared-libasan"
ldflags="-shared-libasan -Wl,-rpath,$rt"
CC=$cc CXX=${FUZZ_CXX:-clang++} cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DDML_SANITIZE=ON -DDML_FUZZ=ON -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$ldflags" -DCMAKE_SHARED_LINKER_FLAGS="$ldflags" \
  -DCMAKE_MODULE_LINKER_FLAGS="$ldflags" -DCMAKE_CUDA_COMPILER=CMAKE_CUDA_COMPILER-NOTFOUND >/dev/null
cmake --build "$build" -j "$jobs" --target fuzz_operators test_fuzz_replay dml_cpu dml_cudaemu
export DML_BACKEND= DML_PLUGIN_PATH=
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:verify_asan_link_order=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$build/fuzz-new" "$build/fuzz-artifacts"
# One target: fuzz it, then replay the corpus through it.
fuzz_target() {
  local target=$1
  printf '\n==== %s: %ss\n' "$target" "$seconds"
  # A fixed seed keeps CI reproducible; DML_FUZZ_SEED=0 lets libFuzzer pick one.
  local options=(-seed="${DML_FUZZ_SEED:-1}" -max_total_time="$seconds" -max_len=512 -timeout=20 -rss_limit_mb=2048
    -artifact_prefix="$build/fuzz-artifacts/" -print_final_stats=1)
  if [ "$fuzz_jobs" -gt 1 ]; then
    # Independent processes sharing build-fuzz/fuzz-new/ (each reloads the
    # others' finds); each logs to build-fuzz/fuzz-logs/fuzz-<job>.log.
    rm -rf "$build/fuzz-logs" && mkdir -p "$build/fuzz-logs"
    (cd "$build/fuzz-logs" && "$build/tests/$target" -jobs="$fuzz_jobs" -workers="$fuzz_jobs" "${options[@]}" \
      "$build/fuzz-new" "$root/tests/fuzz/corpus" >/dev/null 2>&1) || true
    local status=0 log
    for log in "$build"/fuzz-logs/fuzz-*.log; do
      printf -- '-- %s\n' "$log"
      grep -E '^(stat::|Done |==[0-9]+==ERROR|SUMMARY|fuzz_operators \[)' "$log" || true
      grep -q '^Done ' "$log" || status=1
    done
    [ "$status" -eq 0 ] || return 1
  else
    "$build/tests/$target" "${options[@]}" "$build/fuzz-new" "$root/tests/fuzz/corpus" 2>&1 |
      grep -v '^#[0-9]*.*\(NEW\|REDUCE\|pulse\)' || return 1
  fi
  printf '\n==== %s: replaying the corpus\n' "$target"
  "$build/tests/$target" -runs=0 "$root/tests/fuzz/corpus"
}
targets=(fuzz_operators fuzz_graph)
if [ "$fuzz_jobs" -eq 1 ] && [ "$jobs" -ge "${#targets[@]}" ]; then
  # Each target is one process on one core: on a machine with a core per
  # target they fuzz side by side, each for the full time (half CI's wall
  # time, same executions), their output printed in turn.
  mkdir -p "$build/fuzz-out"
  pids=()
  for target in "${targets[@]}"; do
    fuzz_target "$target" >"$build/fuzz-out/$target.log" 2>&1 &
    pids+=($!)
  done
  status=0
  for i in "${!targets[@]}"; do
    wait "${pids[$i]}" || status=1
    cat "$build/fuzz-out/${targets[$i]}.log"
  done
  [ "$status" -eq 0 ] || exit 1
else
  for target in "${targets[@]}"; do
    fuzz_target "$target" || exit 1
  done
fi
CK_DEFAULT_TIMEOUT=300 "$build/tests/test_fuzz_replay"
