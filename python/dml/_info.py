"""`python -m dml info`: what the dmlinfo tool (src/tools/dmlinfo.c) prints,
gathered through the same public API calls from the libdml.so.1 this package
loaded: its version, every plugin file examined, the adapters, the backend a
device gets by default and what that device supports. The text is dmlinfo's,
line for line; --json prints the same facts as dmlinfo --json's object (the
test test_info.py compares both with dmlinfo where it is built)."""
import ctypes
import json
import os
import sys

from . import _lib
from ._lib import lib

USAGE = """usage: {prog} [--backend NAME] [--json]
Prints the runtime's version, lists the backend plugins and their adapters,
and the capabilities of the device that dmlCreateDevice would create (or of
backend NAME).
  --backend NAME  describe a device of backend NAME (cpu, cuda, ...)
  --json          print one JSON object instead of text
  --help          print this text
Environment: DML_PLUGIN_PATH (extra plugin directories), DML_BACKEND.
Exit status: 0 a backend is available, 1 none is, 2 an error or bad usage.
"""
EXIT_FAILURE = 2  # an API call failed, or bad usage (dmlinfo's TOOL_EXIT_FAILURE)

# DirectML's feature levels in order (src/core/feature_levels.h): the
# FEATURE_LEVELS query asks for all of them, as dmlinfo does.
FEATURE_LEVELS = (0x1000, 0x2000, 0x2100, 0x3000, 0x3100, 0x4000, 0x4100, 0x5000,
                  0x5100, 0x5200, 0x6000, 0x6100, 0x6200, 0x6300, 0x6400)
FEATURE_TENSOR_DATA_TYPE_SUPPORT, FEATURE_FEATURE_LEVELS = 0, 1
# Value -> short name ("float32"), in the enum's order (dml_data_type_short_name).
SHORT_NAMES = sorted((value, name.lower()) for name, (value, _size, _signed, _float) in _lib.DATA_TYPES.items())


class PLUGIN_INFO(_lib._Growable):
    _fields_ = [("Size", ctypes.c_uint32), ("Backend", ctypes.c_char * 16), ("Path", ctypes.c_char * 512),
                ("Loaded", ctypes.c_int32), ("Available", ctypes.c_int32), ("AdapterCount", ctypes.c_uint32),
                ("Score", ctypes.c_int32), ("Reason", ctypes.c_char * 256)]


class _DataTypeQuery(ctypes.Structure):
    _fields_ = [("DataType", ctypes.c_int)]


class _Bool(ctypes.Structure):
    _fields_ = [("Value", ctypes.c_int32)]


class _FeatureLevelsQuery(ctypes.Structure):
    _fields_ = [("RequestedFeatureLevelCount", ctypes.c_uint32),
                ("RequestedFeatureLevels", ctypes.POINTER(ctypes.c_int))]


class _FeatureLevel(ctypes.Structure):
    _fields_ = [("Value", ctypes.c_int)]


_DECLARATIONS = {
    "dmlEnumeratePlugins": [ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(PLUGIN_INFO)],
    "dmlEnumerateAdapters": [ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(_lib.ADAPTER_INFO)],
    "dmlDeviceCheckFeatureSupport": [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p,
                                     ctypes.c_uint32, ctypes.c_void_p],
    "dmlDeviceSetThreadLimit": [ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint32)],
}
for _name, _args in _DECLARATIONS.items():
    _f = getattr(lib, _name)
    _f.argtypes, _f.restype = _args, ctypes.c_int32


class _Failure(Exception):
    """A failing call: dmlinfo prints it and exits with status 2."""


def _text(raw):
    # The runtime's bytes as dmlinfo prints them: undecodable bytes survive
    # (surrogateescape) and are written back unchanged.
    return raw.decode("utf-8", "surrogateescape")


def _message():
    return _text(lib.dmlGetLastErrorMessage() or b"")


def _result_name(result):
    return _lib.RESULT_NAMES.get(result, "unknown DML_RESULT")


def _check(result, what):
    if result < 0:
        raise _Failure("%s failed: %s (0x%08X)\n  %s" % (what, _result_name(result), result & 0xFFFFFFFF,
                                                         _message()))


def _failure_text(result):
    return "%s: %s" % (_result_name(result), _message())


def _level_name(level):
    return "%x_%x" % ((level >> 12) & 0xF, (level >> 8) & 0xF)


def _enumerate(function, struct):
    count = ctypes.c_uint32(0)
    _check(function(ctypes.byref(count), None), function.__name__)
    entries = (struct * max(count.value, 1))()
    for entry in entries:
        entry.Size = ctypes.sizeof(struct)
    _check(function(ctypes.byref(count), entries), function.__name__)
    return list(entries[:count.value])


def _selection_reason(requested):
    if requested:
        return "chosen with --backend"
    if os.environ.get("DML_BACKEND"):
        return "forced by DML_BACKEND"
    return "the available backend with the highest score"


def _capabilities(device):
    caps = {"types_error": None, "type_supported": [], "level_error": None, "max_level": 0, "threads": 0}
    for value, _name in SHORT_NAMES:
        query, support = _DataTypeQuery(value), _Bool(0)
        result = lib.dmlDeviceCheckFeatureSupport(device, FEATURE_TENSOR_DATA_TYPE_SUPPORT, ctypes.sizeof(query),
                                                  ctypes.byref(query), ctypes.sizeof(support), ctypes.byref(support))
        if result < 0:
            caps["types_error"] = _failure_text(result)
            break
        caps["type_supported"].append(support.Value != 0)
    levels = (ctypes.c_int * len(FEATURE_LEVELS))(*FEATURE_LEVELS)
    query, support = _FeatureLevelsQuery(len(FEATURE_LEVELS), levels), _FeatureLevel(0)
    result = lib.dmlDeviceCheckFeatureSupport(device, FEATURE_FEATURE_LEVELS, ctypes.sizeof(query),
                                              ctypes.byref(query), ctypes.sizeof(support), ctypes.byref(support))
    if result < 0:
        caps["level_error"] = _failure_text(result)
    else:
        caps["max_level"] = support.Value
    threads = ctypes.c_uint32(0)  # 0 only asks; backends without host threads say DML_E_NOTIMPL
    if lib.dmlDeviceSetThreadLimit(device, 0, ctypes.byref(threads)) >= 0:
        caps["threads"] = threads.value
    return caps


def gather(requested=None):
    """Everything dmlinfo reports, as a dict; raises _Failure as dmlinfo exits 2."""
    version = _lib.VERSION_INFO()
    _check(lib.dmlGetVersion(ctypes.byref(version)), "dmlGetVersion")
    report = {"version": version, "plugins": _enumerate(lib.dmlEnumeratePlugins, PLUGIN_INFO),
              "adapters": _enumerate(lib.dmlEnumerateAdapters, _lib.ADAPTER_INFO), "device": None}
    # With no adapter at all, only a forced backend can still explain itself
    # (dmlCreateDevice says why it is unavailable).
    if report["adapters"] or requested:
        desc = _lib.DEVICE_DESC(requested.encode() if requested else None, 0, 0, _lib.FEATURE_LEVEL_5_0)
        device = ctypes.c_void_p()
        _check(lib.dmlCreateDevice(ctypes.byref(desc), ctypes.byref(device)), "dmlCreateDevice")
        handle = _lib.Handle(device.value)
        try:
            adapter = _lib.ADAPTER_INFO()
            _check(lib.dmlDeviceGetAdapterInfo(device, ctypes.byref(adapter)), "dmlDeviceGetAdapterInfo")
            report["device"] = dict(_capabilities(device), adapter=adapter, backend=_text(adapter.Backend),
                                    why=_selection_reason(requested))
        finally:
            handle.close()
    return report


def format_text(r):
    v = r["version"]
    out = ["Runtime %s (ABI %u.%u, plugin ABI %u)" % (_text(v.Runtime), v.AbiMajor, v.AbiMinor, v.PluginAbiVersion),
           "", "Plugins (%u examined):" % len(r["plugins"])]
    for p in r["plugins"]:
        out += ["  %s" % _text(p.Path), "    backend:   %s" % (_text(p.Backend) or "(none)"),
                "    loaded:    %s" % ("yes" if p.Loaded else "no")]
        if p.Loaded:
            out += ["    available: %s" % ("yes" if p.Available else "no"), "    score:     %d" % p.Score,
                    "    adapters:  %u" % p.AdapterCount]
        if p.Reason:
            out.append("    reason:    %s" % _text(p.Reason))
    out += ["", "Adapters (%u, best backend first):" % len(r["adapters"])]
    for a in r["adapters"]:
        out += ["  %s:%u  %s" % (_text(a.Backend), a.AdapterIndex, _text(a.Description)),
                "    memory:            %.1f MiB (%u bytes)" % (a.MemorySizeInBytes / (1024.0 * 1024.0),
                                                                 a.MemorySizeInBytes),
                "    software:          %s" % ("yes" if a.IsSoftware else "no"),
                "    max feature level: %s" % _level_name(a.MaxFeatureLevel)]
    d = r["device"]
    if d is None:
        return "\n".join(out + ["", "No backend is available.", ""])
    out += ["", "Selected backend: %s (%s)" % (d["backend"], d["why"]),
            "  adapter %u: %s" % (d["adapter"].AdapterIndex, _text(d["adapter"].Description)),
            "", "Device capabilities (%s, adapter 0):" % d["backend"]]
    if d["types_error"]:
        out.append("  data types: (query failed: %s)" % d["types_error"])
    else:
        out.append("  data types:" + "".join(" %s%s" % (name, "" if ok else "(no)")
                                             for (_v, name), ok in zip(SHORT_NAMES, d["type_supported"])))
    if d["level_error"]:
        out.append("  max supported feature level: (query failed: %s)" % d["level_error"])
    else:
        out.append("  max supported feature level: %s" % _level_name(d["max_level"]))
    if d["threads"]:
        out.append("  host threads per dispatch: %u (cap with DML_CPU_THREADS or dmlDeviceSetThreadLimit)"
                   % d["threads"])
    return "\n".join(out + [""])


def as_json(r):
    """dmlinfo --json's object, as Python values."""
    v = r["version"]
    obj = {"version": {"runtime": _text(v.Runtime), "abi": "%u.%u" % (v.AbiMajor, v.AbiMinor),
                       "plugin_abi": v.PluginAbiVersion},
           "plugins": [{"path": _text(p.Path), "backend": _text(p.Backend), "loaded": bool(p.Loaded),
                        "available": bool(p.Available), "score": p.Score, "adapters": p.AdapterCount,
                        "reason": _text(p.Reason)} for p in r["plugins"]],
           "adapters": [{"backend": _text(a.Backend), "index": a.AdapterIndex, "description": _text(a.Description),
                         "memory_bytes": a.MemorySizeInBytes, "software": bool(a.IsSoftware),
                         "max_feature_level": _level_name(a.MaxFeatureLevel)} for a in r["adapters"]],
           "selected": None}
    d = r["device"]
    if d is not None:
        selected = {"backend": d["backend"], "reason": d["why"], "adapter": d["adapter"].AdapterIndex,
                    "description": _text(d["adapter"].Description)}
        if d["types_error"]:
            selected["data_types"] = {"error": d["types_error"]}
        else:
            selected["data_types"] = {name: ok for (_v, name), ok in zip(SHORT_NAMES, d["type_supported"])}
        selected["max_feature_level"] = ({"error": d["level_error"]} if d["level_error"]
                                         else _level_name(d["max_level"]))
        if d["threads"]:
            selected["host_threads"] = d["threads"]
        obj["selected"] = selected
    return obj


def _write(text):
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
    sys.stdout.buffer.flush()


def main(argv, prog="python -m dml info"):
    """dmlinfo's command line; returns its exit status."""
    requested, want_json = None, False
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg in ("--help", "-h"):
            _write(USAGE.format(prog=prog))
            return 0
        if arg == "--json":
            want_json = True
        elif arg == "--backend":
            if not args:
                sys.stderr.write("%s: --backend needs a value (try --help)\n" % prog)
                return EXIT_FAILURE
            requested = args.pop(0)
        else:
            sys.stderr.write("%s: unknown option '%s' (try --help)\n" % (prog, arg))
            return EXIT_FAILURE
    try:
        report = gather(requested or None)
    except _Failure as failure:
        sys.stderr.write("%s: %s\n" % (prog, failure))
        return EXIT_FAILURE
    _write(json.dumps(as_json(report), indent=2) + "\n" if want_json else format_text(report))
    return 0 if report["adapters"] else 1
