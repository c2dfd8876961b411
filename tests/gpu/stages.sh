# shellcheck shell=bash
# stages.sh — the stages of run-on-device.sh, one function each, sourced by
# its child process. A stage returns 0 (passed), 77 (skipped) or anything else
# (failed); it writes why it skipped or failed on the first line of
# $work/<stage>.reason and the figures for the report, as Markdown, to
# $work/<stage>.note. Its output goes to $work/<stage>.log.
root=$DML_KIT_ROOT
build=$DML_KIT_BUILD
work=$DML_KIT_WORK
OUT=$DML_KIT_OUT
kit=$root/tests/gpu
stage=$2
reason_file=$work/$stage.reason
note_file=$work/$stage.note

say_why() { echo "$*" >"$reason_file"; }
note() { echo "$*" >>"$note_file"; }
skip() { say_why "$*"; echo "SKIPPED: $*"; exit 77; }
fail() { say_why "$*"; echo "FAILED: $*"; exit 1; }

# The CUDA plugin finds a GPU, or the stage is skipped with the plugin's reason.
need_gpu() {
    local plugin=$build/lib/dml/libdml_cuda.so present=$build/tests/dml_gpu_present
    [ -x "$present" ] || skip "not built: $present (run the build stage; the CUDA plugin needs nvcc)"
    [ -f "$plugin" ] || skip "the CUDA plugin was not built (no nvcc)"
    local line
    line=$("$present" "$plugin" 2>&1)
    case $? in
    0) ;;
    77) skip "${line#SKIPPED: }" ;;
    *) fail "dml_gpu_present: $line" ;;
    esac
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n 1 >"$work/gpu"
    else
        echo "$line" >"$work/gpu"
    fi
}

need_tool() { command -v "$1" >/dev/null 2>&1 || skip "$1 not found on PATH"; }

# ctest over the tests matching $1, counting passes; fails on any failure.
run_ctest() {
    ctest --test-dir "$build" --output-on-failure -j 4 -R "$1" --timeout "$2" | tee "$work/$stage.ctest"
    local rc=${PIPESTATUS[0]}
    grep -E 'tests passed|Passed|Failed|Not Run|\*\*\*Skipped' "$work/$stage.ctest" | sed 's/^/    /' >>"$note_file"
    return "$rc"
}

# ---- build -----------------------------------------------------------------
# Check: pkg-config's when it has one; else Debian's static libraries carried
# in .gpu-deps/ (tests/gpu/fetch-deps.sh), extracted into .gpu-deps/root.
check_options() {
    if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists check; then
        return 0
    fi
    local deps=$root/.gpu-deps
    ls "$deps"/*.deb >/dev/null 2>&1 || fail "no Check (pkg-config has none) and no .gpu-deps/*.deb: run tests/gpu/fetch-deps.sh on a Debian machine and carry .gpu-deps"
    rm -rf "$deps/root"
    mkdir -p "$deps/root" || fail "cannot create $deps/root"
    local deb
    for deb in "$deps"/*.deb; do
        if command -v dpkg-deb >/dev/null 2>&1; then
            dpkg-deb -x "$deb" "$deps/root" || fail "dpkg-deb -x $deb"
        else # ar + tar: a .deb is an ar archive holding data.tar.*
            local member
            member=$(ar t "$deb" | grep '^data\.tar') || fail "no data.tar in $deb"
            (cd "$deps" && ar x "$deb" "$member" && tar -xf "$member" -C root && rm -f "$member") ||
                fail "cannot extract $deb"
        fi
    done
    local lib header subunit
    lib=$(find "$deps/root" -name libcheck_pic.a | head -n 1)
    header=$(find "$deps/root" -name check.h | head -n 1)
    subunit=$(find "$deps/root" -name libsubunit.a | head -n 1)
    if [ -z "$lib" ] || [ -z "$header" ] || [ -z "$subunit" ]; then
        fail "the .gpu-deps packages hold no libcheck_pic.a, check.h or libsubunit.a"
    fi
    echo "-DDML_CHECK_INCLUDE_DIR=$(dirname "$header") -DDML_CHECK_LIBRARY=$lib -DDML_SUBUNIT_LIBRARY=$subunit -DPKG_CONFIG_EXECUTABLE=/nonexistent"
}

stage_build() {
    need_tool cmake
    local options=() check
    check=$(check_options) || { echo "$check"; exit 1; }
    # shellcheck disable=SC2206
    options+=($check)
    if [ ! -f "$build/CMakeCache.txt" ]; then
        options+=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
        # Kernels for this GPU only (a faster build), when there is one:
        # its compute capability, e.g. 9.0 -> 90-real.
        local capability
        capability=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
        case $capability in
        [1-9][0-9] | [1-9][0-9][0-9]) options+=("-DCMAKE_CUDA_ARCHITECTURES=${capability}-real") ;;
        esac
    fi
    cmake -S "$root" -B "$build" "${options[@]}" || fail "cmake configure failed"
    # Every API suite (tests/cuda_plugin/CMakeLists.txt's DML_API_SUITES): the api stage runs them all.
    local targets=(dml dml_cpu dml_cudaemu dmlrun dmlinfo dmlbench dmlcoalesce test_api_examples test_api_validation
        test_api_differential test_api_lifetime test_api_graph test_api_growable test_api_join_split test_api_padding
        test_api_cast test_api_fill)
    local available
    available=$(cmake --build "$build" --target help 2>/dev/null)
    local t
    for t in dml_cuda dml_gpu_present test_cuda_vs_emulator test_cuda_graph_capture test_cuda_threads; do
        if grep -qw -- "$t" <<<"$available"; then targets+=("$t"); fi
    done
    cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" || fail "build failed"
    note "Built in \`${build#"$root"/}\`: ${targets[*]}."
    grep -qw dml_cuda <<<"$available" || note "No CUDA plugin: nvcc not found, so every GPU stage skips."
    return 0
}

# ---- api: the API suites on the cuda backend --------------------------------
stage_api() {
    need_gpu
    run_ctest '^cuda\.test_api_' 55 || fail "an API suite failed on the cuda backend"
}

# ---- kernels: vs the emulator ------------------------------------------------
stage_kernels() {
    local test=$build/tests/test_cuda_vs_emulator
    [ -x "$test" ] || skip "not built: $test (no nvcc)"
    if ! "$build/tests/dml_gpu_present" "$build/lib/dml/libdml_cuda.so" >/dev/null 2>&1; then
        # No GPU: the emulator's side still runs (every variant reached, vs the reference).
        "$test" --emulator-only | tee "$work/kernels.out" || fail "emulator-only run failed"
        grep -E '^(kernel variants|known defect|CAST|data-dependent|[0-9]+ plans)' "$work/kernels.out" | sed 's/^/    /' >>"$note_file"
        skip "needs a CUDA GPU (ran the emulator side only: every kernel variant reached, emulator == reference)"
    fi
    need_gpu
    "$test" --large | tee "$work/kernels.out" || fail "kernels disagree with the emulator or the reference"
    grep -E '^(kernel variants|known defect|CAST|data-dependent|large|[0-9]+ plans)' "$work/kernels.out" | sed 's/^/    /' >>"$note_file"
}

# ---- sanitizer ----------------------------------------------------------------
stage_sanitizer() {
    local started=$SECONDS
    need_gpu
    local sanitizer
    sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null) ||
        skip "compute-sanitizer not found"
    local tool failed=""
    for tool in memcheck racecheck initcheck synccheck; do
        local extra=()
        [ "$tool" = memcheck ] && extra=(--leak-check full)
        if "$sanitizer" --tool "$tool" "${extra[@]}" --error-exitcode 99 "$build/tests/test_cuda_vs_emulator" --quick \
            >"$work/sanitizer-$tool.log" 2>&1; then
            note "    $tool: clean ($(grep -c . "$work/sanitizer-$tool.log") lines of output; $(grep -E '^kernel variants' "$work/sanitizer-$tool.log" | head -n 1))"
        else
            failed="$failed $tool"
            note "    $tool: FAILED"
            grep -m 5 -E '=========.*(Invalid|Race|Uninitialized|error|Error)' "$work/sanitizer-$tool.log" | sed 's/^/      /' >>"$note_file"
        fi
    done
    # Through the plugin under memcheck: first the suites of CAST, PADDING,
    # JOIN and SPLIT (their kernels and grouped gathers on the cuda backend;
    # test_cuda_vs_emulator --quick above runs the CAST, PAD and grouped
    # kernels on hand-made plans, and the data-dependent kinds' kernels
    # (indexed.cu) on random plans with hostile indices), then, when time is left, the differential suite
    # (CTest cuda_sanitizer.*).
    if [ $((SECONDS - started)) -lt 45 ]; then
        run_ctest '^cuda_sanitizer\.test_api_(cast|padding|join_split)$' 25 || failed="$failed kinds-memcheck"
    else
        note "    memcheck of the CAST, PADDING, JOIN and SPLIT suites not run: the four tools took $((SECONDS - started)) s of the stage's 75"
    fi
    if [ $((SECONDS - started)) -lt 30 ]; then
        run_ctest '^cuda_sanitizer\.test_api_differential$' 40 || failed="$failed plugin-memcheck"
    else
        note "    memcheck of the differential suite not run: $((SECONDS - started)) s of the stage's 75 taken"
    fi
    [ -z "$failed" ] || fail "compute-sanitizer found errors:$failed"
}

# ---- capture, threads ---------------------------------------------------------
stage_capture() {
    need_gpu
    run_ctest '^(cuda_graph_capture|cuda_host_side|cuda_host_side\.two_gpus)$' 20 ||
        fail "graph capture and replay, or the plugin's host side (current context, wrapped memory, streams), failed"
}

stage_threads() {
    local test=$build/tests/test_cuda_threads
    [ -x "$test" ] || skip "not built: $test (no nvcc)"
    if ! "$build/tests/dml_gpu_present" "$build/lib/dml/libdml_cuda.so" >/dev/null 2>&1; then
        # No GPU: the same threads on the emulated backend, for a few seconds.
        DML_TEST_BACKEND=cudaemu DML_TEST_SECONDS=2 DML_BACKEND='' DML_PLUGIN_PATH='' "$test" |
            tee "$work/threads.out" || fail "the threads failed on cudaemu"
        note "    $(tail -n 1 "$work/threads.out")"
        skip "needs a CUDA GPU (ran 2 s on the emulated backend only)"
    fi
    need_gpu
    DML_TEST_SECONDS=$DML_GPU_THREADS_SECONDS DML_BACKEND='' DML_PLUGIN_PATH='' "$test" | tee "$work/threads.out" ||
        fail "a thread's result was wrong, or a call failed"
    note "    $(tail -n 1 "$work/threads.out")"
}

# ---- bench: the fair table and PyTorch/CuPy -----------------------------------
stage_bench() {
    need_gpu
    # First the TensorFlow plugin's ops (18 cases at 64 MiB, seconds), bounded
    # so that the table below keeps its time; their Markdown table goes into
    # the report as it is.
    local tf_failed=0
    if timeout 30 "$build/bin/dmlbench" --gpu-table tensorflow >"$work/tensorflow.md" 2>"$work/tensorflow.err"; then
        note "dmlbench --gpu-table tensorflow (the TensorFlow plugin's ops as the runtime operators it makes of them, \
compare_tensorflow.py's cases at 64 MiB of float32, each against cudaMemcpyAsync of the same bytes):"
        note ""
        cat "$work/tensorflow.md" >>"$note_file"
        note ""
    else
        tf_failed=1
        note "dmlbench --gpu-table tensorflow failed: $(tail -n 1 "$work/tensorflow.err")"
    fi
    "$build/bin/dmlbench" --gpu-table --csv --size "${DML_GPU_BENCH_SIZES:-64M,1G}" >"$OUT/bench.csv" ||
        fail "dmlbench --gpu-table failed"
    note "dmlbench --gpu-table (CUDA events on one stream, medians of 20, working sets >= 4x L2): \`bench.csv\`"
    if python3 "$root/profiling/compare_torch.py" "$OUT/bench.csv" >"$OUT/compare.csv" 2>"$work/compare.err"; then
        note "PyTorch/CuPy in the same run: \`compare.csv\`"
    else
        note "compare_torch.py: $(tail -n 1 "$work/compare.err")"
        rm -f "$OUT/compare.csv"
    fi
    python3 "$kit/summarize.py" bench "$OUT/bench.csv" "$OUT/compare.csv" >>"$note_file" 2>&1
    python3 "$root/profiling/plot.py" "$OUT/bench.csv" "$OUT/bench.png" >"$work/plot.log" 2>&1 ||
        note "(no plot: $(tail -n 1 "$work/plot.log"))"
    [ "$tf_failed" = 0 ] || fail "dmlbench --gpu-table tensorflow failed"
    return 0
}

# ---- ncu: the emulator's coalescing prediction on the hardware ---------------
# A few kernel cases (a whole-row copy is a cudaMemcpyAsync, not a kernel).
# PADDING: the row kernel (cuda/pad_rows_thread.h), 1- and 8-byte elements.
ncu_cases="SLICE1:4:reverse-inner SLICE1:1:transposed SLICE1:4:transposed SLICE1:4:stride+2 SLICE:2:window+1 SLICE1:8:pad-out-odd REVERSE_SUBSEQUENCES:4:time-major PADDING:1:edge PADDING:8:constant"
stage_ncu() {
    need_gpu
    local ncu
    ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null) || skip "ncu not found"
    local metrics=dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
    local c
    for c in $ncu_cases; do
        "$ncu" --csv --print-units base --metrics "$metrics" --kernel-name 'regex:dml_(gather|pad)' --launch-count 1 \
            "$build/bin/dmlbench" --gpu-case "$c" --size 4M >"$work/ncu-$c.csv" 2>&1 ||
            note "    ncu on $c failed: $(tail -n 1 "$work/ncu-$c.csv")"
    done
    # shellcheck disable=SC2086
    python3 "$kit/summarize.py" ncu "$work" $ncu_cases >"$OUT/ncu.csv" 2>"$work/ncu.err" ||
        fail "summarize.py ncu: $(tail -n 1 "$work/ncu.err")"
    note "ncu (4 MiB outputs, caches flushed per kernel) against the emulator's prediction for the same launch (\`ncu.csv\`):"
    note ""
    python3 "$kit/summarize.py" table "$OUT/ncu.csv" >>"$note_file"
}

# ---- nsys: one dmlrun, its NVTX ranges ----------------------------------------
stage_nsys() {
    need_gpu
    need_tool nsys
    DML_BACKEND=cuda nsys profile --trace=cuda,nvtx --force-overwrite=true -o "$OUT/dmlrun" \
        "$build/bin/dmlrun" --examples >"$work/nsys-run.log" 2>&1 || fail "nsys profile failed: $(tail -n 1 "$work/nsys-run.log")"
    # The report is nvtx_sum in current versions, nvtxsum in older ones.
    nsys stats --report nvtx_sum --format csv "$OUT/dmlrun.nsys-rep" >"$work/nvtx.csv" 2>&1 ||
        nsys stats --report nvtxsum --format csv "$OUT/dmlrun.nsys-rep" >"$work/nvtx.csv" 2>&1 ||
        fail "nsys stats failed: $(tail -n 1 "$work/nvtx.csv")"
    rm -f "$OUT/dmlrun.sqlite"
    note "NVTX ranges of \`DML_BACKEND=cuda dmlrun --examples\` (\`dmlrun.nsys-rep\`):"
    note '```'
    cat "$work/nvtx.csv" >>"$note_file"
    note '```'
}

# ---- self-test stages (tests/gpu/test_kit.sh) ---------------------------------
stage_fake_pass() { note "a figure: 42 GB/s"; return 0; }
stage_fake_skip() { skip "needs a fake device"; }
stage_fake_fail() { echo "some output"; fail "it broke"; }
stage_fake_slow() { sleep 30; }
stage_fake_big() { return 0; }
