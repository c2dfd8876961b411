#!/usr/bin/env python3
"""The README's table across sizes, from dmlbench --csv runs.

Each cell is the lowest-highest, over element sizes and runs, of the best
thread count's value of one column (default `ratio`: the operator over the
same run's memcpy of the same traffic; `write_ratio`: over writing its output
alone). Usage:

    build/bin/dmlbench --backend cpu --csv --case C1,C2 --size 256K,4M,16M,64M \\
        --threads all > run1.csv   (and again, > run2.csv)
    profiling/size_table.py run1.csv run2.csv [--column write_ratio]
"""
import argparse, csv, sys
from collections import defaultdict


def size_name(nbytes):
    return f"{nbytes >> 20} MiB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KiB"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="dmlbench --csv output files")
    parser.add_argument("--column", default="ratio", choices=["ratio", "write_ratio"])
    a = parser.parse_args()
    cells = defaultdict(list)  # (case, bytes) -> best value of each run and element size
    cases, sizes = [], set()
    for path in a.runs:
        with open(path) as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
        best = {}
        for r in rows:
            if not r.get(a.column):
                continue
            key = (r["case"], int(r["bytes"]), r["element_size"])
            best[key] = max(best.get(key, 0.0), float(r[a.column]))
            if r["case"] not in cases:
                cases.append(r["case"])
            sizes.add(int(r["bytes"]))
        for (case, nbytes, _), value in best.items():
            cells[(case, nbytes)].append(value)
    if not cells:
        sys.exit(f"size_table.py: no `{a.column}` values in {', '.join(a.runs)}")
    sizes = sorted(sizes)
    print("| operator | " + " | ".join(size_name(s) for s in sizes) + " |")
    print("| --- |" + " --- |" * len(sizes))
    for case in cases:
        row = [f"{min(v):.2f}–{max(v):.2f}" if (v := cells.get((case, s))) else "-" for s in sizes]
        print(f"| {case} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
