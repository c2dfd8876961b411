#!/usr/bin/env python3
"""summarize.py — the GPU kit's tables (run-on-device.sh), Markdown on stdout.

  summarize.py bench BENCH.csv [COMPARE.csv]   fraction of cudaMemcpyAsync per case and
                                               element size, and the ratio to PyTorch
  summarize.py ncu WORKDIR CASE...             joins ncu's counters (WORKDIR/ncu-CASE.csv)
                                               with the emulator's prediction printed by
                                               dmlbench --gpu-case: CSV on stdout
  summarize.py table FILE.csv                  any CSV as a Markdown table
"""
import csv
import os
import sys
from collections import defaultdict


def markdown(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def bench(bench_csv, compare_csv=None):
    with open(bench_csv) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print("bench.csv is empty")
        return 1
    torch = {}
    if compare_csv and os.path.exists(compare_csv):
        with open(compare_csv) as f:
            for r in csv.DictReader(f):
                torch[(r["operator"], r["element_size"], r["pattern"], r["size"])] = r
    print(f"GPU: {rows[0]['gpu']}. Fraction of the same-run cudaMemcpyAsync (copy GB/s in brackets); "
          "x PyTorch where measured.\n")
    sizes = sorted({int(r["size"]) for r in rows})
    for size in sizes:
        table = defaultdict(dict)
        elements = sorted({int(r["element_size"]) for r in rows})
        for r in rows:
            if int(r["size"]) != size:
                continue
            cell = f"{float(r['fraction_of_copy']):.2f} ({float(r['copy_gbps']):.0f})"
            t = torch.get((r["operator"], r["element_size"], r["pattern"], r["size"]))
            if t and t.get("ratio_to_torch"):
                cell += f", {float(t['ratio_to_torch']):.2f}x torch"
            table[(r["operator"], r["pattern"], r["mode"])][int(r["element_size"])] = cell
        print(f"### output {size >> 20} MiB\n")
        print(markdown(["operator", "pattern", "launch"] + [f"{e} B" for e in elements],
                       [[k[0], k[1], k[2]] + [v.get(e, "") for e in elements] for k, v in table.items()]))
        print()
    return 0


def number(text):
    return float(text.replace(",", "")) if text else 0.0


def ncu(workdir, cases):
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["case", "dram_read", "predicted_dram_read", "dram_write", "predicted_dram_write",
                  "ld_sectors_per_request", "predicted_ld_sectors_per_request",
                  "st_sectors_per_request", "predicted_st_sectors_per_request"])
    for case in cases:
        path = os.path.join(workdir, f"ncu-{case}.csv")
        metrics, prediction = {}, None
        header = None
        with open(path) as f:
            for line in f:
                if line.startswith("prediction,"):
                    prediction = line.strip().split(",")
                elif line.startswith('"'):
                    fields = next(csv.reader([line]))
                    if "Metric Name" in fields:
                        header = fields
                    elif header:
                        r = dict(zip(header, fields))
                        metrics.setdefault(r["Metric Name"], number(r["Metric Value"]))
        if not prediction or not metrics:
            out.writerow([case] + ["no data"] * 8)
            continue
        dram_read, dram_write, ld_req, ld_sec, st_req, st_sec = (int(v) for v in prediction[2:8])

        def per(a, b):
            return f"{a / b:.2f}" if b else ""
        m = lambda name: metrics.get(name, 0.0)
        out.writerow([case, int(m("dram__bytes_read.sum")), dram_read, int(m("dram__bytes_write.sum")), dram_write,
                      per(m("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
                          m("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")), per(ld_sec, ld_req),
                      per(m("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
                          m("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")), per(st_sec, st_req)])
    return 0


def table(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    if rows:
        print(markdown(rows[0], rows[1:]))
    return 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "bench":
        return bench(argv[1], argv[2] if len(argv) > 2 else None)
    if len(argv) >= 2 and argv[0] == "ncu":
        return ncu(argv[1], argv[2:])
    if len(argv) == 2 and argv[0] == "table":
        return table(argv[1])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
