#!/bin/sh
# gpu_only.sh GPU_PRESENT PLUGIN COMMAND... — runs COMMAND when the CUDA
# plugin finds a GPU; otherwise prints why and exits 77, which CTest reports
# as a skipped test (SKIP_RETURN_CODE 77).
present=$1
plugin=$2
shift 2
"$present" "$plugin" || exit $?
exec "$@"
