#!/usr/bin/env python3
"""compare_numpy.py — numpy's equivalent of each dmlbench CPU case, timed in
the same run as dmlbench (which it runs with --csv), and the ratio of
throughputs dmlbench/numpy (> 1: dml is faster).

  profiling/compare_numpy.py [--dmlbench build/bin/dmlbench] [--size 64M] [--repetitions 7]

Each numpy case writes into a preallocated output (np.copyto), as dmlbench's
operator does: e.g. reverse_inner is np.copyto(out, x[:, ::-1]).
"""
import argparse, csv, io, statistics, subprocess, sys, time

try:
    import numpy as np
except ImportError:
    sys.exit("compare_numpy.py: numpy is not installed (pip install numpy)")

ROW = 1024
TYPES = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def cases(n, dtype):
    """name -> (source view builder, output shape), shapes as in dmlbench.c."""
    row = min(n, ROW); rows = max(n // row, 1)
    out = {}
    x = np.arange(rows * row, dtype=dtype).reshape(rows, row)
    out["reverse_inner"] = (x[:, ::-1], (rows, row))
    o = min(n, 64); y = np.arange(o * (n // o), dtype=dtype).reshape(o, n // o)
    out["reverse_outer"] = (y[::-1], y.shape)
    if n >= 512:
        # full-length sequences: numpy has no ragged reversal; its best case
        t = np.arange(n, dtype=dtype).reshape(64, 8, n // 512)
        out["seq_time_major"] = (t[::-1], t.shape)
        b = np.arange(n, dtype=dtype).reshape(8, 64, n // 512)
        out["seq_batch_major"] = (b[:, ::-1], b.shape)
    w = np.arange(rows * (row + 64), dtype=dtype).reshape(rows, row + 64)
    out["slice_p1"] = (w[:, :row], (rows, row))
    out["slice_m1"] = (x[:, ::-1], (rows, row))
    w2 = np.arange(rows * row * 2, dtype=dtype).reshape(rows, 2 * row)
    out["slice_p2"] = (w2[:, ::2], (rows, row))
    out["slice_m2"] = (w2[:, ::-2], (rows, row))
    tr = np.arange(rows * row, dtype=dtype).reshape(row, rows)
    out["transpose"] = (tr.T, (rows, row))
    out["broadcast"] = (np.broadcast_to(np.arange(row, dtype=dtype), (rows, row)), (rows, row))
    return out


def time_numpy(src, shape, dtype, warmup, reps):
    dst = np.empty(shape, dtype=dtype)
    samples = []
    for i in range(warmup + reps):
        t0 = time.perf_counter(); np.copyto(dst, src); t1 = time.perf_counter()
        if i >= warmup:
            samples.append(t1 - t0)
    return statistics.median(samples)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dmlbench", default="build/bin/dmlbench")
    ap.add_argument("--size", default="64M")
    ap.add_argument("--repetitions", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=2)
    a = ap.parse_args()
    out = subprocess.run([a.dmlbench, "--backend", "cpu", "--csv", "--size", a.size, "--repetitions",
                          str(a.repetitions), "--warmup", str(a.warmup)], check=True, capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    print(f"{'case':16} {'elem':>4} {'size':>10} {'dml_us':>10} {'numpy_us':>10} {'dml/numpy':>9}")
    worst = None
    for r in rows:
        e, nbytes = int(r["element_size"]), int(r["bytes"])
        dtype = TYPES[e]
        c = cases(nbytes // e, dtype).get(r["case"])
        if c is None:
            continue
        t = time_numpy(c[0], c[1], dtype, a.warmup, a.repetitions)
        dml = float(r["median_us"]) * 1e-6
        ratio = t / dml  # throughput ratio: same bytes, so numpy time / dml time
        worst = ratio if worst is None else min(worst, ratio)
        print(f"{r['case']:16} {e:4} {nbytes:10} {dml*1e6:10.1f} {t*1e6:10.1f} {ratio:9.2f}")
    if worst is not None:
        print(f"lowest dml/numpy throughput ratio: {worst:.2f}")


if __name__ == "__main__":
    main()
