"""python/dml/_lib.py mirrors two tables of the C core: DATA_TYPES
(src/core/data_type.h) and RESULT_NAMES (src/core/result.h). This compares
them with what print_facts prints from the C lists, so that neither side can
change alone.

Usage: check_python_mirrors.py PRINT_FACTS LIBDML   (LIBDML: libdml.so.1,
which the package loads on import)."""
import os
import subprocess
import sys


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
    from dml import _lib

    failures = []
    if _lib.DATA_TYPES != c_types:
        failures.append("DATA_TYPES differs from src/core/data_type.h:\n  python: %s\n  C:      %s"
                        % (sorted(_lib.DATA_TYPES.items()), sorted(c_types.items())))
    if _lib.RESULT_NAMES != c_results:
        failures.append("RESULT_NAMES differs from src/core/result.h:\n  python: %s\n  C:      %s"
                        % (sorted(_lib.RESULT_NAMES.items()), sorted(c_results.items())))
    for f in failures:
        print("FAIL: python/dml/_lib.py " + f)
    if not failures:
        print("python/dml/_lib.py: %d data types and %d result names, as in C" % (len(c_types), len(c_results)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
