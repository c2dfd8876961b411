#!/usr/bin/env python3
"""compare_numpy.py — numpy's equivalent of each dmlbench CPU case, timed in
the same run as dmlbench (which it runs with --csv), and the ratio of
throughputs dmlbench/numpy (> 1: dml is faster).

  profiling/compare_numpy.py [--dmlbench build/bin/dmlbench] [--size 64M] [--repetitions 7]
                             [--case gather_rows_256,...] [--type-size 1,8]
  profiling/compare_numpy.py --cpu-table      # the CPU table of profiling/README.md

Each numpy case writes into a preallocated output (np.copyto), as dmlbench's
operator does: e.g. reverse_inner is np.copyto(out, x[:, ::-1]); join_* is
np.concatenate(..., out=out), split_* np.split then a copy of each part into
its own preallocated output (np.split alone returns views); tile is np.tile's
result as one broadcast np.copyto; depth_to_space and space_to_depth are
ONNX's reshape/transpose forms copied into the output's reshaped view; cast_* is
np.copyto(out, x, casting="unsafe") (x.astype without the allocation);
gather_rows_* np.take(..., out=out), gather_elements np.take_along_axis,
scatter_elements a copy then np.put_along_axis, scatter_nd_rows a copy then
out[idx] = updates, element_wise_if np.where (which allocates). Without
numpy the dmlbench columns are printed alone (numpy columns n/a).
"""
import argparse, csv, io, statistics, subprocess, sys, time

try:
    import numpy as np
except ImportError:
    np = None

ROW = 1024
TYPES = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}


def cases(n, dtype):
    """name -> (source view builder, output shape), shapes as in throughput_cases.c."""
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
    if n >= 16:
        c = np.arange(n // 16 * 16, dtype=dtype).reshape(16, n // 16)
        out["rs_columns_full"] = (c[::-1], c.shape)
        # numpy has no ragged reversal: a precomputed row index per element
        # (not timed) and take_along_axis, its best for a length per column.
        j = np.arange(n // 16, dtype=np.uint32)
        x32 = j * np.uint32(2654435761)
        lengths = np.minimum((x32 ^ (x32 >> np.uint32(15))) % np.uint32(19), 16).astype(np.int64)
        a = np.arange(16)[:, None]
        index = np.where(a < lengths[None, :], lengths[None, :] - 1 - a, a)
        out["rs_columns_random"] = (lambda c=c, index=index: np.take_along_axis(c, index, axis=0), c.shape)
    tr = np.arange(rows * row, dtype=dtype).reshape(row, rows)
    out["transpose"] = (tr.T, (rows, row))
    out["broadcast"] = (np.broadcast_to(np.arange(row, dtype=dtype), (rows, row)), (rows, row))
    if row >= 3 and rows >= 3:
        # np.pad allocates its result: timed as it is, no copy after it
        image = np.arange((rows - 2) * (row - 2), dtype=dtype).reshape(rows - 2, row - 2)
        for case, mode in (("pad_constant", "constant"), ("pad_edge", "edge"), ("pad_reflect", "reflect"),
                           ("pad_symmetric", "symmetric")):
            out[case] = (WRITES, lambda image=image, mode=mode: np.pad(image, 1, mode=mode))
    # JOIN / SPLIT: the whole is [R, 1024] (its rows or columns an even count),
    # the parts its halves; a case writes its own outputs (WRITES).
    for inner in (True, False):
        axis, half = (1, row // 2) if inner else (0, rows // 2)
        if half < 1:
            continue
        whole = (rows, 2 * half) if inner else (2 * half, row)
        part = (rows, half) if inner else (half, row)
        p0, p1 = np.arange(part[0] * part[1], dtype=dtype).reshape(part), np.ones(part, dtype)
        dst = np.empty(whole, dtype)
        suffix = "inner" if inner else "outer"
        out["join_" + suffix] = (WRITES, lambda p0=p0, p1=p1, dst=dst, axis=axis: np.concatenate([p0, p1], axis, out=dst))
        x_whole, o0, o1 = np.arange(whole[0] * whole[1], dtype=dtype).reshape(whole), np.empty(part, dtype), np.empty(part, dtype)

        def split_copy(x=x_whole, o0=o0, o1=o1, axis=axis):
            a, b = np.split(x, 2, axis)
            np.copyto(o0, a)
            np.copyto(o1, b)
        out["split_" + suffix] = (WRITES, split_copy)
    # TILE of [R/2, 512] by (2, 2): np.tile's result written into the
    # preallocated output by one broadcast copy (np.tile itself allocates).
    if row >= 2 and rows >= 2:
        t_in = np.arange(rows // 2 * (row // 2), dtype=dtype).reshape(rows // 2, row // 2)
        t_out = np.empty((rows // 2 * 2, row // 2 * 2), dtype)
        out["tile"] = (WRITES, lambda t_in=t_in, t_out=t_out: np.copyto(
            t_out.reshape(2, rows // 2, 2, row // 2), t_in.reshape(1, rows // 2, 1, row // 2)))
    # DEPTH_TO_SPACE (DCR) / SPACE_TO_DEPTH with blocks of 2, [1, 4C, H, 512]
    # <-> [1, C, 2H, 1024]: ONNX's reshape/transpose forms, copied into the
    # preallocated output's reshaped view.
    if n // ROW >= 2:
        ch = 16 if n // ROW >= 32 else 1
        h = n // ROW // (2 * ch)
        if h:
            depth = np.arange(4 * ch * h * (ROW // 2), dtype=dtype).reshape(1, 4 * ch, h, ROW // 2)
            space = np.empty((1, ch, 2 * h, ROW), dtype)
            out["depth_to_space"] = (WRITES, lambda x=depth, y=space: np.copyto(
                y.reshape(1, ch, h, 2, ROW // 2, 2), x.reshape(1, 2, 2, ch, h, ROW // 2).transpose(0, 3, 4, 1, 5, 2)))
            space_in = np.arange(ch * 2 * h * ROW, dtype=dtype).reshape(1, ch, 2 * h, ROW)
            depth_out = np.empty((1, 4 * ch, h, ROW // 2), dtype)
            out["space_to_depth"] = (WRITES, lambda x=space_in, y=depth_out: np.copyto(
                y.reshape(1, 2, 2, ch, h, ROW // 2), x.reshape(1, ch, h, 2, ROW // 2, 2).transpose(0, 3, 5, 1, 2, 4)))
    # FILL_VALUE_CONSTANT / _SEQUENCE: [R, 1024], a constant 7 (np.copyto of a
    # scalar into the preallocated output) and 1, 4, 7, ... (np.arange with
    # out= is not numpy's: arange allocates, timed as it is).
    out["fill_constant"] = (WRITES, lambda dst=np.empty((rows, row), dtype): np.copyto(dst, dtype(7)))
    out["fill_sequence"] = (WRITES, lambda: np.arange(1, 1 + 3 * rows * row, 3, dtype=dtype).reshape(rows, row))
    # CAST: [R, 1024] of dmlbench's input bytes (i * 131 + 7) read as the
    # source type, astype'd into a preallocated output (np.copyto, casting
    # "unsafe"; NaN and out-of-range values included, numpy's warnings off).
    # The table's element size is the output's: other sizes have no case.
    pattern = (np.arange(rows * row * 4, dtype=np.uint64) * 131 + 7).astype(np.uint8)
    for case, source, target in (("cast_f32_f16", np.float32, np.float16), ("cast_f32_i32", np.float32, np.int32),
                                 ("cast_u8_f32", np.uint8, np.float32)):
        if np.dtype(target).itemsize != np.dtype(dtype).itemsize:
            continue
        src = pattern[:rows * row * np.dtype(source).itemsize].view(source).reshape(rows, row)
        dst = np.empty((rows, row), target)

        def cast_copy(src=src, dst=dst):
            with np.errstate(all="ignore"):
                np.copyto(dst, src, casting="unsafe")
        out[case] = (WRITES, cast_copy)
    # The data-dependent cases, shaped as throughput_cases.c's, with random
    # INT64 indices (a different draw: only the traffic pattern matters).
    rng = np.random.default_rng(7)
    for case, row_bytes in (("gather_rows_256", 256), ("gather_rows_1k", 1024)):
        width = row_bytes // np.dtype(dtype).itemsize
        t_rows = n // width
        if t_rows == 0:
            continue
        table = np.arange(t_rows * width, dtype=dtype).reshape(t_rows, width)
        idx = rng.integers(0, t_rows, t_rows, dtype=np.int64)
        dst = np.empty((t_rows, width), dtype)
        out[case] = (WRITES, lambda table=table, idx=idx, dst=dst: np.take(table, idx, axis=0, out=dst))
        if row_bytes == 1024:  # SCATTER_ND of rows: a copy, then fancy-index assignment
            upd = np.ones((t_rows, width), dtype)

            def scatter_rows(table=table, idx=idx, upd=upd, dst=dst):
                np.copyto(dst, table)
                dst[idx] = upd
            out["scatter_nd_rows"] = (WRITES, scatter_rows)
    along = rng.integers(0, row, (rows, row), dtype=np.int64)
    out["gather_elements"] = (lambda x=x, along=along: np.take_along_axis(x, along, axis=1), (rows, row))
    updates, dst = np.ones((rows, row), dtype), np.empty((rows, row), dtype)

    def scatter_elements(x=x, along=along, updates=updates, dst=dst):
        np.copyto(dst, x)
        np.put_along_axis(dst, along, updates, axis=1)
    out["scatter_elements"] = (WRITES, scatter_elements)
    cond = rng.integers(0, 2, (rows, row), dtype=np.uint8).astype(bool)
    b = np.ones((rows, row), dtype)
    # np.where allocates its result (it has no out=): timed as it is
    out["element_wise_if"] = (WRITES, lambda cond=cond, x=x, b=b: np.where(cond, x, b))
    return out


WRITES = "writes its own outputs"  # a case (WRITES, work): work() does it all


def time_numpy(src, shape, dtype, warmup, reps):
    if src is WRITES:
        work = shape
    else:
        dst = np.empty(shape, dtype=dtype)

        def work():
            np.copyto(dst, src() if callable(src) else src)
    samples = []
    for i in range(warmup + reps):
        t0 = time.perf_counter(); work(); t1 = time.perf_counter()
        if i >= warmup:
            samples.append(t1 - t0)
    return statistics.median(samples)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dmlbench", default="build/bin/dmlbench")
    ap.add_argument("--size", default="64M")
    ap.add_argument("--repetitions", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--case", help="dmlbench's --case: the cases to run, comma-separated (default: all)")
    ap.add_argument("--type-size", help="dmlbench's --type-size: element sizes, comma-separated (default: all)")
    ap.add_argument("--cpu-table", action="store_true",
                    help="dmlbench --cpu-table: 256K, 4M, 64M on 1..N threads, every case and element size")
    a = ap.parse_args()
    command = [a.dmlbench, "--backend", "cpu", "--csv", "--repetitions", str(a.repetitions), "--warmup", str(a.warmup)]
    command += ["--cpu-table"] if a.cpu_table else ["--size", a.size]
    command += ["--case", a.case] if a.case else []
    command += ["--type-size", a.type_size] if a.type_size else []
    text = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    lines = text.splitlines()
    for line in lines:
        if line.startswith("#"):
            print(line[2:])  # the machine line
    rows = list(csv.DictReader(io.StringIO("\n".join(l for l in lines if not l.startswith("#")))))
    print("command: " + " ".join(command) + ("" if np is not None else "   (numpy not importable: numpy columns n/a)"))
    print(f"{'case':17} {'elem':>4} {'size':>10} {'thr':>3} {'dml_us':>10} {'vs_memcpy':>9} {'vs_write':>8} "
          f"{'numpy_us':>10} {'dml/numpy':>9}")
    worst = None
    numpy_cache = {}
    for r in rows:
        e, nbytes = int(r["element_size"]), int(r["bytes"])
        dml = float(r["median_us"]) * 1e-6
        t = None
        if np is not None:
            key = (r["case"], e, nbytes)  # numpy runs on one thread: time it once per case
            if key not in numpy_cache:
                dtype = getattr(np, TYPES[e])
                c = cases(nbytes // e, dtype).get(r["case"])
                numpy_cache[key] = None if c is None else time_numpy(c[0], c[1], dtype, a.warmup, a.repetitions)
            t = numpy_cache[key]
        numpy_us = f"{t*1e6:10.1f}" if t else f"{'n/a':>10}"
        ratio = f"{t / dml:9.2f}" if t else f"{'n/a':>9}"
        if t:
            worst = t / dml if worst is None else min(worst, t / dml)
        vs_write = f"{float(r['write_ratio']):8.2f}" if r.get("write_ratio") else f"{'-':>8}"
        print(f"{r['case']:17} {e:4} {nbytes:10} {int(r['threads']):3} {dml*1e6:10.1f} {float(r['ratio']):9.2f} "
              f"{vs_write} {numpy_us} {ratio}")
    if worst is not None:
        print(f"lowest dml/numpy throughput ratio: {worst:.2f}")


if __name__ == "__main__":
    main()
