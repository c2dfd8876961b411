"""python -m dml info [--backend NAME] [--json]: what the dmlinfo tool prints
(dml/_info.py), for the runtime this package loads."""
import sys

COMMANDS = "usage: python -m dml info [--backend NAME] [--json] [--help]\n"


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(COMMANDS)
        return 0 if argv else 2
    if argv[0] != "info":
        sys.stderr.write("python -m dml: unknown command '%s'\n%s" % (argv[0], COMMANDS))
        return 2
    from . import _info  # loads libdml.so.1: only once the command is known
    return _info.main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
