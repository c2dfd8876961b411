#!/usr/bin/env python3
"""profiling/size_table.py over two made-up dmlbench --csv runs: each cell is
the lowest-highest, over element sizes and runs, of the best thread count's
value; a size a case lacks prints '-'; a missing column is an error."""
import os, subprocess, sys, tempfile

script = sys.argv[1]
header = "backend,case,element_size,bytes,threads,median_us,gbps,copy_gbps,ratio,plain_c_ratio,write_ratio\n"
# (case, element size, bytes, threads, ratio, write_ratio)
run1 = [("tile", 1, 262144, 1, 0.50, 0.9), ("tile", 1, 262144, 2, 0.70, 0.8), ("tile", 4, 262144, 1, 0.60, 0.7),
        ("tile", 4, 67108864, 2, 1.10, 1.0), ("fill", 4, 262144, 1, 1.00, 0.5)]
run2 = [("tile", 1, 262144, 1, 0.40, 0.6), ("tile", 4, 262144, 2, 0.90, 0.95)]
with tempfile.TemporaryDirectory() as d:
    paths = []
    for k, rows in enumerate((run1, run2)):
        path = os.path.join(d, f"run{k}.csv")
        with open(path, "w") as f:
            f.write("# machine: made up\n" + header)
            for c, e, b, t, r, w in rows:
                f.write(f"cpu,{c},{e},{b},{t},1.0,1.0,1.0,{r},,{w}\n")
        paths.append(path)
    out = subprocess.run([sys.executable, script, *paths], capture_output=True, text=True, check=True).stdout
    want = ["| operator | 256 KiB | 64 MiB |", "| --- | --- | --- |",
            "| tile | 0.40–0.90 | 1.10–1.10 |", "| fill | 1.00–1.00 | - |"]
    assert out.splitlines() == want, out
    out = subprocess.run([sys.executable, script, *paths, "--column", "write_ratio"], capture_output=True, text=True,
                         check=True).stdout
    assert "| tile | 0.60–0.95 | 1.00–1.00 |" in out.splitlines(), out
    with open(paths[0], "w") as f:
        f.write(header.replace(",write_ratio", ""))
    bad = subprocess.run([sys.executable, script, paths[0], "--column", "write_ratio"], capture_output=True, text=True)
    assert bad.returncode != 0 and "no `write_ratio` values" in bad.stderr, bad
print("size_table.py: cells, missing sizes and a missing column as documented")
