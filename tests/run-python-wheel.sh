#!/usr/bin/env bash
# The Python wheel as a user builds and installs it (called by run-python.sh):
#   1. a copy of the working tree (what git tracks or would track; no build
#      trees), `pip wheel ./python` in it from a clean venv: pip fetches
#      scikit-build-core, which builds the runtime with the project's CMake
#      (python/pyproject.toml, cmake/DmlPythonWheel.cmake);
#   2. the wheel and numpy installed into a fresh venv; python/tests run from
#      an empty directory with no DML_* variable set: the package must find
#      its own dml/lib/libdml.so.1 and plugins;
#   3. the copy and the wheel's build tree removed, python/tests run again.
# Prints the stage's times. When scikit-build-core cannot be installed it
# prints "SKIPPED (the wheel stage did not run): why" and exits 0.
# The CUDA plugin is built for the architectures of any build
# (DML_CUDA_ARCHITECTURES' default, cmake/DmlCuda.cmake): most of the stage's
# time. DML_WHEEL_CUDA_ARCHITECTURES=80-virtual (say: PTX only, no ptxas) builds less, for a quicker run.
#
# Usage: tests/run-python-wheel.sh BUILD_DIR   (its py-wheel/ is the scratch space)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: run-python-wheel.sh BUILD_DIR}" && pwd)
work=$build/py-wheel
pip_quiet=(-q --disable-pip-version-check)
started=$SECONDS
say() { echo "run-python-wheel: $*"; }
skip() { say "SKIPPED (the wheel stage did not run): $*"; exit 0; }

rm -rf "$work" && mkdir -p "$work/run"
cp -r "$root/python/tests" "$work/tests" # the suite itself, apart from the tree
python3 -m venv "$work/build-venv" >/dev/null 2>&1 || skip "python3 -m venv failed"
# What pip's isolated build will fetch: a failure here is the network or the
# index, not the project.
"$work/build-venv/bin/pip" download "${pip_quiet[@]}" --no-deps -d "$work/probe" "scikit-build-core>=0.10" \
  >"$work/probe.log" 2>&1 || skip "pip cannot fetch scikit-build-core (see $work/probe.log)"

# 1. The copy, as a user's checkout: tracked and untracked-but-not-ignored files.
src=$work/src
mkdir -p "$src"
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$root" && git ls-files -z -co --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
    tar -C "$src" -xf -
else
  tar -C "$root" --exclude='./build*' --exclude=./.git --exclude=./out -cf - . | tar -C "$src" -xf -
fi
t0=$SECONDS
# Its build tree inside the copy, so that step 3 removes both. CMake builds
# with all cores (Ninja's default; CMAKE_BUILD_PARALLEL_LEVEL for Make).
if ! (cd "$src" && CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$work/build-venv/bin/pip" wheel "${pip_quiet[@]}" \
      --no-deps -w "$work/dist" -C build-dir="$src/python/build/wheel" \
      ${DML_WHEEL_CUDA_ARCHITECTURES:+-C cmake.define.DML_CUDA_ARCHITECTURES="$DML_WHEEL_CUDA_ARCHITECTURES"} \
      ./python) >"$work/wheel.log" 2>&1; then
  cat "$work/wheel.log"; say "FAILED: pip wheel ./python"; exit 1
fi
wheel_s=$((SECONDS - t0))
wheel=$(ls "$work"/dist/dml-*.whl)
say "built $(basename "$wheel") in ${wheel_s} s ($(du -k "$wheel" | cut -f1) KiB):"
python3 -m zipfile -l "$wheel" | awk '$1 ~ /^dml\/lib\// { print "  " $1 }'

# 2. A fresh venv: the wheel and numpy only.
t0=$SECONDS
python3 -m venv "$work/venv" >/dev/null
"$work/venv/bin/pip" install "${pip_quiet[@]}" "$wheel" numpy >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; say "FAILED: pip install of the wheel"; exit 1; }
install_s=$((SECONDS - t0))

# No DML_* variable, no PYTHONPATH; from an empty directory, so that only the
# installed package can be imported.
clean_env=(env -u PYTHONPATH)
for name in $(env | sed -n 's/^\(DML_[A-Za-z0-9_]*\)=.*/\1/p'); do clean_env+=(-u "$name"); done
run_suite() {
  (cd "$work/run" && "${clean_env[@]}" "$work/venv/bin/python" -c \
     'import dml, dml._lib as l, os; print("run-python-wheel: loaded", l.lib._name); assert l.lib._name.startswith(os.path.dirname(dml.__file__))'
   cd "$work/run" && "${clean_env[@]}" "$work/venv/bin/python" -m dml info | sed -n '/^Plugins/,/^$/p'
   cd "$work/run" && "${clean_env[@]}" "$work/venv/bin/python" -m unittest discover -s "$work/tests" -t "$work/tests")
}
t0=$SECONDS
say "python/tests against the installed wheel"
run_suite
# 3. Nothing of the build may be needed any more.
rm -rf "$src"
say "python/tests again, the copy and the wheel's build tree removed"
run_suite
tests_s=$((SECONDS - t0))
say "times: wheel ${wheel_s} s, venv + install ${install_s} s, two test runs ${tests_s} s; stage $((SECONDS - started)) s"
