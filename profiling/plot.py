#!/usr/bin/env python3
"""plot.py — draws dmlbench's ratios to the same-run copy as a PNG.

  build/bin/dmlbench --csv > bench.csv && profiling/plot.py bench.csv ratios.png

One panel per element size; x: output size, y: ratio to copy, a line per case.
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
    data = defaultdict(lambda: defaultdict(list))
    with open(sys.argv[1]) as f:
        for r in csv.DictReader(f):
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

if __name__ == "__main__":
    sys.exit(main())
