#!/bin/sh
# ptxas_log.sh LOG COMPILER ARGS... — the compiler launcher of cuda/kernels.cu.
# Runs the nvcc command and keeps ptxas's per-kernel report (asked for with
# -Xptxas=-v: "ptxas info" lines and the indented "bytes stack frame" lines)
# in LOG, for the cuda_ptxas_no_spills test; everything else (warnings,
# errors) goes through to stderr.
log=$1
shift
tmp="$log.tmp.$$"
"$@" 2>"$tmp"
status=$?
report='^ptxas info *:|^ +[0-9]+ bytes stack frame'
grep -Ev "$report" "$tmp" >&2
if [ "$status" -eq 0 ]; then
    grep -E "$report" "$tmp" >"$log"
fi
rm -f "$tmp"
exit "$status"
