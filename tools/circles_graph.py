# SPDX-License-Identifier: MIT
"""The graph work of tools/circles.py: the groups of nodes that reach each
other (strongly connected components), and one shortest loop through such
a group, for the include, import and call graphs alike. A graph is
{node: set of nodes it reaches in one step}."""
import sys


def components(graph):
    """Strongly connected components of graph ({node: set}) with more than
    one node, each sorted, in sorted order."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
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
                out.append(sorted(comp))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(out)


def shortest_loop(graph, comp):
    """A shortest loop through comp's first node inside comp: [n0, ..., n0]."""
    start, inside = comp[0], set(comp)
    prev, seen, frontier = {}, {start}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph.get(v, ())):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return path[::-1] + [start]
                if w in inside and w not in seen:
                    seen.add(w)
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    raise ValueError(f"no loop through {start}")


def circles(graph, why_of):
    """[(loop, why)]: for each group of graph's nodes ({node: {node: ...}})
    that reach each other, one shortest loop [n0, n1, ..., n0] and
    why_of(a, b) for each step."""
    plain = {m: set(e) for m, e in graph.items()}
    out = []
    for comp in components(plain):
        loop = shortest_loop(plain, comp)
        out.append((loop, [why_of(a, b) for a, b in zip(loop, loop[1:])]))
    return out
