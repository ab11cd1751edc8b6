#!/usr/bin/env python3
"""layers: no two objects of the engine call each other in a circle. `layers.py acyclic ARCHIVE`
reads `nm` of every member of ARCHIVE (libmcens.a), links each undefined symbol to the member that
defines it, and fails naming every strongly connected set of more than one member, with the
symbols behind each of its edges. The layering doc/architecture.md describes (src/, io/ and mpi/
each a one-way stack) depends on it. Exit status by t/checkrun.py's convention."""
import collections
import re
import subprocess
import sys

from checkrun import fail, run


def call_graph(archive):
    out = subprocess.run(["nm", "-A", archive], capture_output=True, text=True, check=True).stdout
    defined, undefined = collections.defaultdict(set), collections.defaultdict(set)
    for line in out.splitlines():  # ARCHIVE:MEMBER:[VALUE] TYPE NAME
        m = re.match(r"^.*:([^:]+):\s*(?:[0-9a-fA-F]+\s+)?([A-Za-z])\s+(\S+)$", line)
        if not m:
            continue
        member, kind, name = m.groups()
        if kind in "TDRBi":
            defined[member].add(name)
        elif kind == "U":
            undefined[member].add(name)
    owner = {s: m for m, ss in defined.items() for s in ss}
    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    for m, ss in undefined.items():
        for s in ss:
            if s in owner and owner[s] != m:
                edges[m][owner[s]].add(s)
    return set(defined) | set(undefined), edges


def circles(nodes, edges):
    """Tarjan's strongly connected sets of more than one node."""
    index, low, stack, on, found = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v), on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def acyclic(archive):
    nodes, edges = call_graph(archive)
    if len(nodes) < 20:
        fail(f"{archive}: only {len(nodes)} members read; expected the engine's objects")
    found = circles(nodes, edges)
    if found:
        text = []
        for comp in found:
            text.append(" <-> ".join(comp))
            for a in comp:
                for b in sorted(x for x in edges[a] if x in comp):
                    text.append(f"  {a} -> {b}: {', '.join(sorted(edges[a][b])[:4])}")
        fail("objects that call each other in a circle:\n" + "\n".join(text))
    print(f"{len(nodes)} objects, no call circle")


run({"acyclic": acyclic}, sys.argv)
