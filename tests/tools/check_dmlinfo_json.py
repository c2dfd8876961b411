"""check_dmlinfo_json.py DMLINFO — dmlinfo --json is one valid JSON object that
says what the text form says: the same runtime version, the same plugins
(paths), the same selected backend and adapter, and the CPU plugin's known
facts (available, software,
all eleven data types, feature level 5_0). A JSON string with a quote, a
backslash or a control byte in it (a plugin path) must round-trip: run it once
more with such a directory in DML_PLUGIN_PATH."""
import json
import os
import re
import subprocess
import sys
import tempfile

dmlinfo = sys.argv[1]


def run(*args, env=None):
    p = subprocess.run([dmlinfo, *args], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"{dmlinfo} {' '.join(args)}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    return p.stdout


def check(condition, what):
    if not condition:
        sys.exit(f"check_dmlinfo_json: {what}")


info = json.loads(run("--json"))
text = run()
check(set(info) == {"version", "plugins", "adapters", "selected"}, f"top-level keys {sorted(info)}")
version = info["version"]
check(re.fullmatch(r"\d+\.\d+\.\d+", version["runtime"]) and re.fullmatch(r"\d+\.\d+", version["abi"])
      and isinstance(version["plugin_abi"], int), f"version {version}")
check(text.startswith(f"Runtime {version['runtime']} (ABI {version['abi']}, plugin ABI {version['plugin_abi']})\n"),
      f"version {version} not the text form's first line: {text.splitlines()[0]}")
text_paths = re.findall(r"^  (/\S.*)$", text, re.M)
check([p["path"] for p in info["plugins"]] == text_paths, f"plugin paths differ from the text form: {text_paths}")
cpu = [p for p in info["plugins"] if p["backend"] == "cpu"]
check(len(cpu) == 1 and cpu[0]["loaded"] and cpu[0]["available"] and cpu[0]["score"] == 100, f"cpu plugin {cpu}")
sel = info["selected"]
check(re.search(rf"^Selected backend: {sel['backend']} \({re.escape(sel['reason'])}\)$", text, re.M),
      f"selected {sel} not in the text form")
check(sel["backend"] == "cpu", "the CI machine has no GPU: cpu must be selected")
check(sel["data_types"] == {t: True for t in ("float32", "float16", "uint32", "uint16", "uint8", "int32", "int16",
                                              "int8", "float64", "uint64", "int64")}, f"data types {sel['data_types']}")
check(sel["max_feature_level"] == "5_0", f"feature level {sel['max_feature_level']}")
adapters = [a for a in info["adapters"] if a["backend"] == "cpu"]
check(adapters and adapters[0]["software"] and adapters[0]["memory_bytes"] > 0, f"cpu adapter {adapters}")

# Escaping: a plugin directory whose name holds a quote, a backslash and a tab.
with tempfile.TemporaryDirectory() as tmp:
    odd = os.path.join(tmp, 'odd "dir\\ with\ttab')
    os.mkdir(odd)
    with open(os.path.join(odd, "libdml_junk.so"), "w") as f:
        f.write("not an ELF file\n")
    env = dict(os.environ, DML_PLUGIN_PATH=odd)
    info = json.loads(run("--json", env=env))
    junk = [p for p in info["plugins"] if p["path"].endswith("libdml_junk.so")]
    check(len(junk) == 1 and junk[0]["path"].startswith(odd) and not junk[0]["loaded"] and junk[0]["reason"],
          f"odd plugin path did not round-trip: {junk}")
print("check_dmlinfo_json: OK")
