#!/usr/bin/env bash
# run-on-device.sh — the GPU validation kit: builds the project and its GPU
# tests, runs them, benchmarks, profiles, and writes $OUT/report.md with CSVs.
#
# On the borrowed GPU machine (one `run` call, from the repository root, at
# most 10 minutes; first, HERE, once: tests/gpu/fetch-deps.sh):
#
#   run  command: tests/gpu/run-on-device.sh
#        carry:   [".gpu-deps"]
#
# Stages, each of which can run alone (default: all, in this order):
#   build      configure (Check from .gpu-deps/ when pkg-config has none) and build
#   api        the API suites on the cuda backend (CTest: cuda.test_api_*)
#   kernels    kernels vs emulator byte for byte, every kernel variant, one case
#              above 2^31 elements (CTest: cuda_kernels_vs_emulator)
#   sanitizer  compute-sanitizer memcheck, racecheck, initcheck, synccheck over
#              a subset that reaches every kernel (CAST and PAD included),
#              exact-size allocations; memcheck over the CAST, PADDING and
#              JOIN/SPLIT suites on the cuda backend
#   capture    dispatches captured into a CUDA graph and replayed
#   threads    8 host threads, own streams, dispatching (DML_GPU_THREADS_SECONDS, 60)
#   bench      dmlbench --gpu-table tensorflow (the TensorFlow plugin's ops, in
#              report.md) and --gpu-table (CUDA events, working sets >= 4x L2;
#              the gathers, PADDING, JOIN, SPLIT and CAST against
#              cudaMemcpyAsync) and PyTorch/CuPy in the same run; bench.csv,
#              compare.csv, bench.png
#   ncu        DRAM bytes and sectors per request vs the emulator's prediction
#   nsys       an nsys trace of one dmlrun (the NVTX ranges)
# e.g.  tests/gpu/run-on-device.sh build kernels sanitizer
#
# Environment: OUT (default out/gpu-kit), DML_GPU_BUILD_DIR (default build-gpu;
# CI's dry run reuses build), DML_GPU_BUDGET (seconds for the whole run, 585),
# DML_GPU_BENCH_SIZES (64M,1G),
# DML_GPU_THREADS_SECONDS (60).
#
# Without a GPU (here, CI) it builds, runs what can run, says which stages it
# skipped and why, and exits 0. With one, it exits 1 when any stage failed.
# What comes back ($OUT, at most 8 files): report.md, bench.csv, compare.csv,
# ncu.csv, bench.png, logs.tar.gz, dmlrun.nsys-rep.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
kit="$root/tests/gpu"
OUT=${OUT:-$root/out/gpu-kit}
build=${DML_GPU_BUILD_DIR:-build-gpu}
case $build in /*) ;; *) build="$root/$build" ;; esac
budget=${DML_GPU_BUDGET:-585}
export DML_GPU_THREADS_SECONDS=${DML_GPU_THREADS_SECONDS:-60}
all_stages="build api kernels sanitizer capture threads bench ncu nsys"
# Seconds each stage may take (its timeout); a stage is skipped when less than
# this is left of the budget. They add up to at most the default budget.
declare -A stage_budget=([build]=150 [api]=60 [kernels]=60 [sanitizer]=75 [capture]=10 [threads]=75
    [bench]=110 [ncu]=30 [nsys]=15)

# ---- self-test stages (tests/gpu/test_kit.sh), only with DML_GPU_KIT_SELFTEST=1
if [ "${DML_GPU_KIT_SELFTEST:-0}" = 1 ]; then
    all_stages="fake_pass fake_skip fake_fail fake_slow"
    stage_budget=([fake_pass]=5 [fake_skip]=5 [fake_fail]=5 [fake_slow]=2 [fake_big]=100000)
fi

usage() {
    echo "usage: $0 [stage...]   stages: $all_stages" >&2
    exit 2
}

# ---- one stage, in a child process (so `timeout` can bound it) -------------
if [ "${1:-}" = --stage ]; then
    # shellcheck source=/dev/null
    . "$kit/stages.sh"
    "stage_$2"
    exit $?
fi

stages=("$@")
[ ${#stages[@]} -eq 0 ] && read -r -a stages <<<"$all_stages"
for s in "${stages[@]}"; do
    [ -n "${stage_budget[$s]:-}" ] || usage
done

mkdir -p "$OUT" || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/dml-gpu-kit.XXXXXX") || exit 2
export DML_KIT_WORK=$work DML_KIT_BUILD=$build DML_KIT_ROOT=$root DML_KIT_OUT=$OUT

# ---- the report, rewritten after every stage (a run killed at its time limit
# still leaves one) ------------------------------------------------------------
write_report() {
    local gpu="no GPU" commit
    if [ -f "$work/gpu" ]; then gpu=$(cat "$work/gpu"); fi
    {
        echo "# GPU validation kit report"
        echo
        echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); total $(($(date +%s) - start)) s of a ${budget} s budget"
        if commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null); then
            git -C "$root" diff --quiet HEAD 2>/dev/null || commit="$commit (with uncommitted changes)"
        else
            commit="unknown (no git here)"
        fi
        echo "- commit: $commit"
        echo "- command: tests/gpu/run-on-device.sh ${stages[*]}"
        echo "- host: $(uname -srm), $(nproc) CPUs"
        echo "- GPU: $gpu"
        if command -v nvidia-smi >/dev/null 2>&1; then
            echo "- nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,memory.total,power.limit --format=csv,noheader 2>&1 | head -n 1)"
            echo "  (name, driver, SM clock, max SM clock, memory clock, max memory clock, memory, power limit)"
        fi
        if command -v nvcc >/dev/null 2>&1; then
            echo "- nvcc: $(nvcc --version | tail -n 2 | head -n 1)"
        fi
        echo
        echo "| stage | status | seconds | why / what |"
        echo "| --- | --- | --- | --- |"
        printf '%s\n' "${rows[@]}"
        cat "$work/notes.md"
    } >"$OUT/report.md"
    tar -C "$work" -czf "$OUT/logs.tar.gz" --exclude=gpu . 2>/dev/null
}

start=$(date +%s)
failed=0
rows=()
: >"$work/notes.md"
for s in "${stages[@]}"; do
    now=$(date +%s)
    left=$((budget - (now - start)))
    limit=${stage_budget[$s]}
    if [ "$left" -lt "$limit" ]; then
        rows+=("| $s | skipped | 0 | not enough of the ${budget} s budget left (${left} s; the stage needs ${limit} s) |")
        continue
    fi
    t0=$(date +%s)
    timeout --kill-after=5 "$limit" "$0" --stage "$s" >"$work/$s.log" 2>&1 </dev/null
    rc=$?
    t1=$(date +%s)
    reason=$(head -n 1 "$work/$s.reason" 2>/dev/null)
    case $rc in
    0) status=passed ;;
    77) status=skipped ;;
    124 | 137) status=failed; reason="timed out after ${limit} s${reason:+; $reason}"; failed=1 ;;
    *) status=failed; reason="exit status $rc${reason:+; $reason}"; failed=1 ;;
    esac
    rows+=("| $s | $status | $((t1 - t0)) | ${reason//|/\\|} |")
    if [ -s "$work/$s.note" ]; then
        { printf '\n## %s\n\n' "$s"; cat "$work/$s.note"; } >>"$work/notes.md"
    fi
    if [ "$status" = failed ]; then
        { printf '\n## %s: last lines of its log\n\n```\n' "$s"; tail -n 40 "$work/$s.log"; printf '```\n'; } \
            >>"$work/notes.md"
    fi
    printf '%-10s %-8s %4s s  %s\n' "$s" "$status" "$((t1 - t0))" "$reason"
    write_report
done
write_report
rm -rf "$work"
echo "report: $OUT/report.md"
if [ "$failed" = 1 ]; then
    exit 1
fi
exit 0
