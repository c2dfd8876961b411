#!/usr/bin/env python3
"""plot.py — draws dmlbench's ratios to the same-run copy as a PNG.

  build/bin/dmlbench --csv > bench.csv && profiling/plot.py bench.csv ratios.png

One panel per element size; x: output size, y: ratio to copy, a line per case.
The GPU table (dmlbench --gpu-table --csv) instead: one panel per output size,
a group of bars per operator and pattern, a bar per element size, y: fraction
of the same-run cudaMemcpyAsync.
Without matplotlib it says so and exits 0 (nothing to draw with).
"""
import csv, sys
from collections import defaultdict

def main():
    if len(sys.argv) < 2:
        sys.exit("usage: plot.py BENCH.csv [OUT.png]")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib is not installed; skipping the plot (pip install matplotlib)")
        return 0
    out = sys.argv[2] if len(sys.argv) > 2 else "dmlbench_ratios.png"
    with open(sys.argv[1]) as f:
        rows = list(csv.DictReader(f))
    if rows and "fraction_of_copy" in rows[0]:
        return plot_gpu_table(plt, rows, out)
    data = defaultdict(lambda: defaultdict(list))
    for r in rows:
        data[int(r["element_size"])][r["case"]].append((int(r["bytes"]), float(r["ratio"])))
    sizes = sorted(data)
    fig, axes = plt.subplots(1, len(sizes), figsize=(5 * len(sizes), 4), sharey=True, squeeze=False)
    for ax, e in zip(axes[0], sizes):
        for case, points in sorted(data[e].items()):
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=case)
        ax.set_xscale("log", base=2)
        ax.set_title(f"{e}-byte elements")
        ax.set_xlabel("output bytes")
        ax.axhline(1.0, color="gray", lw=0.5)
    axes[0][0].set_ylabel("throughput / same-run copy")
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"plot.py: wrote {out}")
    return 0

def plot_gpu_table(plt, rows, out):
    sizes = sorted({int(r["size"]) for r in rows})
    fig, axes = plt.subplots(len(sizes), 1, figsize=(18, 4 * len(sizes)), squeeze=False)
    for ax, size in zip(axes[:, 0], sizes):
        cases = [r for r in rows if int(r["size"]) == size]
        groups = sorted({(r["operator"], r["pattern"]) for r in cases}, key=lambda g: (g[0], g[1]))
        elements = sorted({int(r["element_size"]) for r in cases})
        width = 0.8 / max(len(elements), 1)
        for k, e in enumerate(elements):
            value = {(r["operator"], r["pattern"]): float(r["fraction_of_copy"])
                     for r in cases if int(r["element_size"]) == e}
            ax.bar([i + k * width for i in range(len(groups))], [value.get(g, 0) for g in groups], width,
                   label=f"{e}-byte")
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(groups))])
        ax.set_xticklabels([f"{o[:5]} {p}" for o, p in groups], rotation=60, ha="right", fontsize=7)
        ax.axhline(1.0, color="gray", lw=0.5)
        ax.set_ylabel("fraction of cudaMemcpyAsync")
        ax.set_title(f"{rows[0]['gpu']}: outputs of {size >> 20} MiB")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"plot.py: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
