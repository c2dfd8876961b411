#!/usr/bin/env python3
"""compare_torch.py — the gathers of `dmlbench --gpu-table` done by PyTorch and
CuPy on the same GPU, in the same run, timed the same way, and our speed as a
ratio to theirs.

  build/bin/dmlbench --gpu-table --csv > bench.csv
  profiling/compare_torch.py bench.csv > compare.csv

For each row of bench.csv the same tensors (sizes, strides, offsets, element
size) are built and the library's own operation is timed:
  SLICE/SLICE1  positive strides: out.copy_(strided view)  (strided slicing;
                a transposed input is permute(...).contiguous()'s copy)
                negative strides: torch.flip(strided view)  (CuPy: copy of a
                negative-stride view)
  RS  lengths 0: a copy; the whole axis: torch.flip along it; per-sequence
      lengths (no such operation in either library): a proxy, torch.flip of
      the axis' first half into the output and a copy of the rest.
Timing: CUDA events around every repetition, medians of 20 after 2 warm-up,
repetitions rotating over as many buffer sets as dmlbench used (so the same
working set beyond L2), and the stream kept busy by a spin kernel while the
repetitions are enqueued, so Python's launch overhead is not timed (as
dmlbench holds its stream). GB/s use dmlbench's bytes (read + written), so
ratio = their time / our time.

Columns: operator, element_size, pattern, size, ours_gbps, torch_op,
torch_gbps, ratio_to_torch, cupy_gbps, ratio_to_cupy. A library that is not
importable gives empty columns; with neither the script says so and exits 1.
"""
import csv
import statistics
import sys

REPETITIONS, WARMUP = 20, 2


# The operators whose bench.csv rows describe a strided gather (make_fn).
GATHERS = ("SLICE", "SLICE1", "REVERSE_SUBSEQUENCES")


def ints(text):
    return [int(v) for v in text.split("x")] if text else []


def storage_elements(sizes, strides):
    return 1 + sum((s - 1) * abs(st) for s, st in zip(sizes, strides))


def slice_plan(row):
    """Per dimension: (offset, length in the input, step), steps signed."""
    op = row["operator"]
    offs, wins, steps = ints(row["offsets"]), ints(row["window_sizes"]), ints(row["window_strides"])
    plan = []
    for off, win, step in zip(offs, wins, steps):
        if op == "SLICE":  # window = output size, unsigned stride
            plan.append((off, (win - 1) * step + 1, step))
        else:
            plan.append((off, win, step))
    return plan


class Library:
    """What differs between PyTorch and CuPy."""

    def __init__(self, name):
        self.name = name
        if name == "torch":
            import torch
            self.m = torch
            self.dtypes = {1: torch.uint8, 2: torch.float16, 4: torch.float32, 8: torch.int64}
        else:
            import cupy
            self.m = cupy
            self.dtypes = {1: cupy.uint8, 2: cupy.float16, 4: cupy.float32, 8: cupy.int64}
            self.spin = cupy.RawKernel(
                r'extern "C" __global__ void spin(long long cycles) {'
                r' long long t = clock64(); while (clock64() - t < cycles) {} }', "spin")

    def buffer(self, elements, e):
        if self.name == "torch":
            return self.m.full((elements,), 7, dtype=self.dtypes[e], device="cuda")
        return self.m.full((elements,), 7, dtype=self.dtypes[e])

    def strided(self, base, sizes, strides, e):
        if self.name == "torch":
            return base.as_strided(sizes, strides)
        from cupy.lib.stride_tricks import as_strided
        return as_strided(base, shape=sizes, strides=[s * e for s in strides])

    def flip(self, view, dims):
        if self.name == "torch":
            return self.m.flip(view, dims)
        return self.m.ascontiguousarray(self.m.flip(view, axis=tuple(dims)))

    def copy(self, out, view):
        if self.name == "torch":
            out.copy_(view)
        else:
            out[...] = view

    def hold(self):
        """Keeps the GPU busy (~10 ms) while Python enqueues the repetitions."""
        if self.name == "torch":
            self.m.cuda._sleep(20_000_000)
        else:
            self.spin((1,), (1,), (self.m.int64(20_000_000),))

    def time(self, fns):
        if self.name == "torch":
            ev = lambda: self.m.cuda.Event(enable_timing=True)
            sync = self.m.cuda.synchronize
            elapsed = lambda a, b: a.elapsed_time(b)
        else:
            ev = self.m.cuda.Event
            sync = self.m.cuda.Device().synchronize
            elapsed = self.m.cuda.get_elapsed_time
        for i in range(WARMUP):
            fns[i % len(fns)]()
        sync()
        self.hold()
        marks = []
        for i in range(REPETITIONS):
            a, b = ev(), ev()
            a.record()
            fns[i % len(fns)]()
            b.record()
            marks.append((a, b))
        sync()
        return statistics.median(elapsed(a, b) for a, b in marks)


def make_fn(lib, row):
    """A function doing the row's gather once on a fresh buffer set, and its label."""
    e = int(row["element_size"])
    in_sizes, in_strides = ints(row["in_sizes"]), ints(row["in_strides"])
    out_sizes, out_strides = ints(row["out_sizes"]), ints(row["out_strides"])
    base = lib.buffer(storage_elements(in_sizes, in_strides), e)
    out_base = lib.buffer(storage_elements(out_sizes, out_strides), e)
    x = lib.strided(base, in_sizes, in_strides, e)
    out = lib.strided(out_base, out_sizes, out_strides, e)
    if row["operator"] == "REVERSE_SUBSEQUENCES":
        axis, lengths = int(row["axis"]), row["lengths"]
        if lengths == "zero":
            return (lambda: lib.copy(out, x)), "copy"
        if lengths == "full":
            return (lambda: lib.flip(x, [axis])), "flip"
        half = in_sizes[axis] // 2
        head = [slice(None)] * len(in_sizes)
        tail = list(head)
        head[axis], tail[axis] = slice(0, half), slice(half, None)
        head, tail = tuple(head), tuple(tail)

        def proxy():
            lib.copy(out[head], lib.flip(x[head], [axis]))
            lib.copy(out[tail], x[tail])
        return proxy, "flip(first half)+copy (proxy)"
    index, flips = [], []
    for d, (off, length, step) in enumerate(slice_plan(row)):
        if step > 0:
            index.append(slice(off, off + length, step))
        else:  # SLICE1: from the window's last element backwards
            s = -step
            index.append(slice(off + (length - 1) % s, off + length, s))
            flips.append(d)
    view = x[tuple(index)]
    if flips:
        return (lambda: lib.flip(view, flips)), "flip"
    return (lambda: lib.copy(out, view)), "copy_(strided view)"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: compare_torch.py BENCH.csv > COMPARE.csv")
    libraries = []
    for name in ("torch", "cupy"):
        try:
            libraries.append(Library(name))
        except Exception as error:  # not installed, or no GPU for it
            print(f"compare_torch.py: {name} unavailable: {error}", file=sys.stderr)
    if not libraries:
        print("compare_torch.py: neither PyTorch nor CuPy is importable", file=sys.stderr)
        return 1
    with open(sys.argv[1]) as f:
        rows = list(csv.DictReader(f))
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["operator", "element_size", "pattern", "size", "ours_gbps", "torch_op", "torch_gbps",
                "ratio_to_torch", "cupy_gbps", "ratio_to_cupy"])
    for row in rows:
        if row["operator"] not in GATHERS:
            continue  # PADDING, JOIN, SPLIT, CAST: their rows carry no gather to redo here
        traffic = int(row["out_bytes"]) + int(row["read_bytes"])
        ours = float(row["gbps"])
        result = {"torch": ("", "", ""), "cupy": ("", "", "")}
        for lib in libraries:
            try:
                fns, label = [], ""
                for _ in range(int(row["sets"])):
                    fn, label = make_fn(lib, row)
                    fns.append(fn)
                ms = lib.time(fns)
                gbps = traffic / (ms * 1e-3) * 1e-9
                result[lib.name] = (label, f"{gbps:.2f}", f"{ours / gbps:.3f}")
                del fns
            except Exception as error:
                print(f"compare_torch.py: {lib.name}: {row['operator']} {row['pattern']}: {error}", file=sys.stderr)
                result[lib.name] = ("failed", "", "")
            if lib.name == "torch":
                lib.m.cuda.empty_cache()
            else:
                lib.m.get_default_memory_pool().free_all_blocks()
        w.writerow([row["operator"], row["element_size"], row["pattern"], row["size"], f"{ours:.2f}",
                    result["torch"][0] or result["cupy"][0], result["torch"][1], result["torch"][2],
                    result["cupy"][1], result["cupy"][2]])
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
