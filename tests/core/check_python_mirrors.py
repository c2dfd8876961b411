"""python/dml/_lib.py mirrors two tables of the C core: DATA_TYPES
(src/core/data_type.h) and RESULT_NAMES (src/core/result.h). This compares
them with what print_facts prints from the C lists, so that neither side can
change alone. It also compares python/dml/_enums.py with include/dml/dml.h
itself: every C enum has its enum.IntEnum (HEADER_ENUMS) with the same
members and values, and Result and Limits hold dml.h's DML_S_OK/DML_E_* and
numeric constants. The header is read as text; an entry this reader cannot
evaluate (anything but a literal or an implicit value) fails the check.

Usage: check_python_mirrors.py PRINT_FACTS LIBDML   (LIBDML: libdml.so.1,
which the package loads on import)."""
import os
import re
import subprocess
import sys

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "include", "dml", "dml.h")


def header_enums(text):
    """{C enum name: {member: value}} of every typedef enum in the header,
    values as C assigns them (a literal, or the previous value + 1)."""
    enums = {}
    for name, body in re.findall(r"typedef enum (\w+) \{(.*?)\} \1;", text, re.S):
        members, following = {}, 0
        for entry in re.sub(r"/\*.*?\*/|//[^\n]*", "", body, flags=re.S).split(","):
            entry = entry.strip()
            if not entry:
                continue
            m = re.fullmatch(r"(\w+)(?:\s*=\s*(0x[0-9A-Fa-f]+|\d+))?", entry)
            if not m:
                raise ValueError("%s: cannot evaluate the entry %r" % (name, entry))
            following = int(m.group(2), 0) if m.group(2) else following
            members[m.group(1)] = following
            following += 1
        enums[name] = members
    return enums


def header_defines(text, pattern):
    """{name: value} of the #defines matching pattern with a literal value
    (results as signed 32-bit numbers)."""
    found = {}
    for name, value in re.findall(r"#define (%s)\s+(?:\(\(DML_RESULT\))?(0x[0-9A-Fa-f]+|\d+)u?\)?" % pattern, text):
        v = int(value, 0)
        found[name] = v - (1 << 32) if v >= 1 << 31 else v
    return found


def compare_enums(enums_module):
    """Failures: the header's enums and constants against python/dml/_enums.py."""
    with open(HEADER) as f:
        text = f.read()
    failures = []
    c_enums = header_enums(text)
    mirrored = enums_module.HEADER_ENUMS
    for name in sorted(set(c_enums) | set(mirrored)):
        if name not in mirrored:
            failures.append("%s of dml.h has no mirror in HEADER_ENUMS" % name)
            continue
        if name not in c_enums:
            failures.append("HEADER_ENUMS names %s, which dml.h does not declare" % name)
            continue
        cls, prefix = mirrored[name]
        python = {prefix + k: int(v) for k, v in cls.__members__.items()}
        if python != c_enums[name]:
            missing = sorted(set(c_enums[name].items()) - set(python.items()))
            extra = sorted(set(python.items()) - set(c_enums[name].items()))
            failures.append("%s differs from dml.h's %s: missing %s, extra %s" % (cls.__name__, name, missing, extra))
    for cls, pattern, prefix in ((enums_module.Result, r"DML_[SE]_\w+", "DML_"),
                                 (enums_module.Limits, r"DML_\w+(?:_MAX1?|_ALIGNMENT)", "DML_")):
        python = {prefix + k: int(v) for k, v in cls.__members__.items()}
        c = header_defines(text, pattern)
        if python != c:
            failures.append("%s differs from dml.h's #defines:\n  python: %s\n  C:      %s"
                            % (cls.__name__, sorted(python.items()), sorted(c.items())))
    return failures, len(c_enums)


def main():
    printer, library = sys.argv[1], sys.argv[2]
    c_types, c_results = {}, {}
    for line in subprocess.run([printer], check=True, capture_output=True, text=True).stdout.splitlines():
        kind, name, *values = line.split()
        if kind == "type":
            value, size, signed, is_float = (int(v) for v in values)
            c_types[name] = (value, size, bool(signed), bool(is_float))
        else:
            c_results[int(values[0])] = name
    os.environ["DML_LIBRARY"] = library
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    from dml import _enums, _lib

    failures, enum_count = compare_enums(_enums)
    if _lib.DATA_TYPES != c_types:
        failures.append("DATA_TYPES differs from src/core/data_type.h:\n  python: %s\n  C:      %s"
                        % (sorted(_lib.DATA_TYPES.items()), sorted(c_types.items())))
    if _lib.RESULT_NAMES != c_results:
        failures.append("RESULT_NAMES differs from src/core/result.h:\n  python: %s\n  C:      %s"
                        % (sorted(_lib.RESULT_NAMES.items()), sorted(c_results.items())))
    for f in failures:
        print("FAIL: python/dml/ " + f)
    if not failures:
        print("python/dml/_lib.py: %d data types and %d result names, as in C; python/dml/_enums.py: %d enums, "
              "the results and the limits, as in dml.h" % (len(c_types), len(c_results), enum_count))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
