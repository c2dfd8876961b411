#!/usr/bin/env python3
"""python_call_overhead.py — what one call of a single-operator function costs
from Python, on a tensor so small (4 KiB) that the copy itself is noise: the
package's per-call work (DLPack in and out, descs, bindings, dispatch).

    DML_LIBRARY=build/lib/libdml.so.1 build/py-venv/bin/python profiling/python_call_overhead.py
        [--calls 2000] [--repeat 7] [--backend cpu] [--profile]

The case: dml.slice1 of a (32, 32) float32 numpy array with its rows reversed
(offsets 0, sizes (32, 32), strides (-1, 1)), against numpy's own copy of the
same view (x[::-1].copy(), which allocates its result as dml does). Each
figure is the best of --repeat timings of --calls calls (µs a call), after a
warm-up call (the first call compiles the operator; its time is printed
apart). A few other operators are timed the same way. --profile prints
cProfile's top functions for the slice1 loop instead. Not run by CTest.
"""
import argparse
import cProfile
import os
import pstats
import sys
import time

try:
    import dml
except ImportError:  # not installed: the source tree's package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import dml
import numpy as np


def per_call(function, calls, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(calls):
            function()
        best = min(best, time.perf_counter() - start)
    return best / calls * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    x = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)
    backend = args.backend

    def dml_slice1():
        return dml.slice1(x, [0, 0], [32, 32], [-1, 1], backend=backend)

    def numpy_copy():
        return x[::-1].copy()

    start = time.perf_counter()
    first = dml_slice1()
    first_us = (time.perf_counter() - start) * 1e6
    assert np.array_equal(first, x[::-1])
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(args.calls):
            dml_slice1()
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
        return 0

    version = dml.version()
    print("dml %s (ABI %d.%d), numpy %s, Python %s, backend %s, %d calls, best of %d"
          % (version.runtime, version.abi[0], version.abi[1], np.__version__, sys.version.split()[0], backend,
             args.calls, args.repeat))
    numpy_us = per_call(numpy_copy, args.calls, args.repeat)
    slice_us = per_call(dml_slice1, args.calls, args.repeat)
    print("%-44s %8.1f us (the compiling first call)" % ("dml.slice1 first call", first_us))
    print("%-44s %8.1f us/call  %5.1fx numpy" % ("dml.slice1 (32, 32) float32, rows reversed", slice_us,
                                                 slice_us / numpy_us))
    print("%-44s %8.1f us/call" % ("numpy x[::-1].copy()", numpy_us))

    others = [
        ("dml.identity (32, 32) float32", lambda: dml.identity(x, backend=backend), lambda: x.copy()),
        ("dml.tile (32, 32) float32, reps (2, 1)", lambda: dml.tile(x, (2, 1), backend=backend),
         lambda: np.tile(x, (2, 1))),
        ("dml.cast (32, 32) float32 -> float16", lambda: dml.cast(x, np.float16, backend=backend),
         lambda: x.astype(np.float16)),
    ]
    for name, run, reference in others:
        run()
        us, ref = per_call(run, args.calls, args.repeat), per_call(reference, args.calls, args.repeat)
        print("%-44s %8.1f us/call  %5.1fx numpy (%.1f us)" % (name, us, us / ref, ref))
    return 0


if __name__ == "__main__":
    sys.exit(main())
