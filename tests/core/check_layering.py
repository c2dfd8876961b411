#!/usr/bin/env python3
"""No call cycles between the files of a static library.

Usage: check_layering.py NM LIBRARY...

Each member of each archive is one source file. A member depends on another
when it references a function the other defines (nm: T); data references (the
operator table's entries, the plugin table) are not calls. Fails, naming the
cycle, when the dependency graph has one; prints the layering otherwise.
"""
import re
import subprocess
import sys

# "archive.a:member.c.o:<address> T name" or "archive.a:member.c.o:   U name"
LINE = re.compile(r"^.*?:([^:/]+\.o):\s*(.*)$")


def members(nm, archive):
    """{member: (defined functions, undefined symbols)} of one archive."""
    out = subprocess.run([nm, "-A", archive], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        match = LINE.match(line)
        if not match:
            continue
        member = match.group(1).removesuffix(".o").removesuffix(".c")
        parts = match.group(2).split()
        defined, undefined = found.setdefault(member, (set(), set()))
        if len(parts) == 3 and parts[1] == "T":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
    return found


def find_cycle(graph):
    """One cycle of the graph as a list of nodes, or None (depth-first search)."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for succ in sorted(graph.get(node, ())):
            if state.get(succ) == "open":
                return stack[stack.index(succ):] + [succ]
            if succ not in state:
                cycle = visit(succ)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def main():
    nm, archives = sys.argv[1], sys.argv[2:]
    status = 0
    for archive in archives:
        found = members(nm, archive)
        owner = {f: m for m, (defined, _) in found.items() for f in defined}
        graph = {m: {owner[u] for u in undefined if u in owner and owner[u] != m}
                 for m, (_, undefined) in found.items()}
        cycle = find_cycle(graph)
        name = archive.rsplit("/", 1)[-1]
        if cycle:
            print(f"{name}: call cycle between files: {' -> '.join(cycle)}")
            status = 1
        else:
            print(f"{name}: {len(graph)} files, no call cycle")
    return status


if __name__ == "__main__":
    sys.exit(main())
