#!/usr/bin/env bash
# test_kit.sh — the kit's own logic without a GPU: fake stages that pass,
# skip, fail and overrun their time, a stage beyond the budget, and the
# report and exit status they must give. CTest: gpu_kit_logic.
set -uo pipefail
kit=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/dml-kit-test.XXXXXX")
trap 'rm -rf "$out"' EXIT
failures=0
expect() { # expect WHAT PATTERN FILE
    if ! grep -qE -- "$2" "$3"; then
        echo "FAIL: $1: no line matching '$2' in $3:"
        cat "$3"
        failures=$((failures + 1))
    fi
}

# A failing stage fails the run; every stage is reported with its reason.
OUT=$out/a DML_GPU_KIT_SELFTEST=1 "$kit/run-on-device.sh" >"$out/a.log" 2>&1
rc=$?
[ "$rc" = 1 ] || { echo "FAIL: exit status $rc with a failing stage, expected 1"; failures=$((failures + 1)); }
r=$out/a/report.md
expect "passed stage" '^\| fake_pass \| passed \| [0-9]+ \|' "$r"
expect "its note" '^a figure: 42 GB/s$' "$r"
expect "skipped stage and why" '^\| fake_skip \| skipped \| [0-9]+ \| needs a fake device \|$' "$r"
expect "failed stage and why" '^\| fake_fail \| failed \| [0-9]+ \| exit status 1; it broke \|$' "$r"
expect "its log's tail" '^some output$' "$r"
expect "timed-out stage" '^\| fake_slow \| failed \| [0-9]+ \| timed out after 2 s \|$' "$r"
expect "device line" '^- GPU: ' "$r"
expect "command line" '^- command: tests/gpu/run-on-device.sh fake_pass fake_skip fake_fail fake_slow$' "$r"
[ -f "$out/a/logs.tar.gz" ] || { echo "FAIL: no logs.tar.gz"; failures=$((failures + 1)); }

# Stages run alone; skips alone exit 0; a stage beyond the budget is skipped, saying so.
OUT=$out/b DML_GPU_KIT_SELFTEST=1 "$kit/run-on-device.sh" fake_skip fake_big fake_pass >"$out/b.log" 2>&1
rc=$?
[ "$rc" = 0 ] || { echo "FAIL: exit status $rc with passes and skips only, expected 0"; failures=$((failures + 1)); }
r=$out/b/report.md
expect "budget skip" '^\| fake_big \| skipped \| 0 \| not enough of the 585 s budget left \([0-9]+ s; the stage needs 100000 s\) \|$' "$r"
expect "stage after it still runs" '^\| fake_pass \| passed' "$r"
if grep -q fake_fail "$r"; then echo "FAIL: a stage not asked for ran"; failures=$((failures + 1)); fi

# An unknown stage is a usage error.
OUT=$out/c DML_GPU_KIT_SELFTEST=1 "$kit/run-on-device.sh" nonsense >"$out/c.log" 2>&1
rc=$?
[ "$rc" = 2 ] || { echo "FAIL: exit status $rc for an unknown stage, expected 2"; failures=$((failures + 1)); }

# The tables: dmlbench's GPU CSV with PyTorch's ratios, and ncu's counters
# joined with the emulator's prediction (made-up figures, in the tools' formats).
cat >"$out/bench.csv" <<'CSV'
gpu,operator,element_size,pattern,size,out_bytes,read_bytes,sets,working_set,mode,index_bits,grid,block,median_us,gbps,copy_median_us,copy_gbps,fraction_of_copy,rank,in_sizes,in_strides,out_sizes,out_strides,offsets,window_sizes,window_strides,axis,lengths
Fake H100,SLICE1,4,reverse-inner,67108864,67108864,67108864,2,268435456,vector-reversed,32,528,256,50.000,2684.35,45.000,2982.62,0.9000,2,65536x256,256x1,65536x256,256x1,0x0,65536x256,1x-1,-1,
CSV
cat >"$out/compare.csv" <<'CSV'
operator,element_size,pattern,size,ours_gbps,torch_op,torch_gbps,ratio_to_torch,cupy_gbps,ratio_to_cupy
SLICE1,4,reverse-inner,67108864,2684.35,flip,1342.17,2.000,,
CSV
python3 "$kit/summarize.py" bench "$out/bench.csv" "$out/compare.csv" >"$out/bench.md"
expect "bench table" '^\| SLICE1 \| reverse-inner \| vector-reversed \| 0\.90 \(2983\), 2\.00x torch \|$' "$out/bench.md"
expect "bench table's GPU" '^GPU: Fake H100\.' "$out/bench.md"
mkdir -p "$out/ncu"
cat >"$out/ncu/ncu-SLICE1:4:transposed.csv" <<'CSV'
==PROF== Connected to process 1 (dmlbench)
prediction,SLICE1:4:transposed,4194304,4194304,32768,262144,32768,32768
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","1","dmlbench","127.0.0.1","dml_gather_kernel","1","13","(256, 1, 1)","(528, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","byte","4,200,000"
"0","1","dmlbench","127.0.0.1","dml_gather_kernel","1","13","(256, 1, 1)","(528, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_write.sum","byte","4,194,304"
"0","1","dmlbench","127.0.0.1","dml_gather_kernel","1","13","(256, 1, 1)","(528, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","request","32,768"
"0","1","dmlbench","127.0.0.1","dml_gather_kernel","1","13","(256, 1, 1)","(528, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector","262,144"
"0","1","dmlbench","127.0.0.1","dml_gather_kernel","1","13","(256, 1, 1)","(528, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_requests_pipe_lsu_mem_global_op_st.sum","request","32,768"
"0","1","dmlbench","127.0.0.1","dml_gather_kernel","1","13","(256, 1, 1)","(528, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum","sector","131,072"
CSV
python3 "$kit/summarize.py" ncu "$out/ncu" SLICE1:4:transposed >"$out/ncu.csv"
expect "ncu join" '^SLICE1:4:transposed,4200000,4194304,4194304,4194304,8\.00,8\.00,4\.00,1\.00$' "$out/ncu.csv"
python3 "$kit/summarize.py" table "$out/ncu.csv" >"$out/ncu.md"
expect "ncu table" '^\| SLICE1:4:transposed \| 4200000 \| 4194304 \|' "$out/ncu.md"

echo "$failures failure(s)"
[ "$failures" = 0 ]
