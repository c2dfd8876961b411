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
expect "budget skip" '^\| fake_big \| skipped \| 0 \| not enough of the 570 s budget left \([0-9]+ s; the stage needs 100000 s\) \|$' "$r"
expect "stage after it still runs" '^\| fake_pass \| passed' "$r"
if grep -q fake_fail "$r"; then echo "FAIL: a stage not asked for ran"; failures=$((failures + 1)); fi

# An unknown stage is a usage error.
OUT=$out/c DML_GPU_KIT_SELFTEST=1 "$kit/run-on-device.sh" nonsense >"$out/c.log" 2>&1
rc=$?
[ "$rc" = 2 ] || { echo "FAIL: exit status $rc for an unknown stage, expected 2"; failures=$((failures + 1)); }

echo "$failures failure(s)"
[ "$failures" = 0 ]
