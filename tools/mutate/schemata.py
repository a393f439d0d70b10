"""Mutant schemata: every mutant of a file compiled into one source, each switched on at run time.

A site (an AST node's extent) with mutants m1..mk becomes
    (::crossgrad_mutation::on(m1) ? (variant 1) : ... : (original))
and sites nested inside it are rendered, recursively, in every branch that does not edit them, so
that one build holds every mutant and exactly one is live at a time (CROSSGRAD_MUTANT=<id>).
Rendering keeps, for every site and every variant, the byte range it occupies in the output: a
compiler error is mapped back through them to the one mutant (or site) that caused it, which is
then dropped as "not compiled", and the file is rendered again.
"""
from __future__ import annotations

import os
import re

SWITCH = "::crossgrad_mutation::on"


class _Group:
    def __init__(self, start, end):
        self.start, self.end = start, end
        self.mutants = []
        self.children = []


def _tree(mutants):
    groups = {}
    for m in mutants:
        groups.setdefault(m.site, _Group(*m.site)).mutants.append(m)
    ordered = sorted(groups.values(), key=lambda g: (g.start, -g.end))
    roots, stack = [], []
    for g in ordered:
        while stack and stack[-1].end <= g.start:
            stack.pop()
        if stack and g.end > stack[-1].end:
            continue  # crosses its enclosing site (macro-made extents): not switchable
        (stack[-1].children if stack else roots).append(g)
        stack.append(g)
    return roots


def _overlaps(edits, g):
    return any(s < g.end and g.start < e or (s == e and g.start < s < g.end) for s, e, _ in edits)


class Rendered:
    def __init__(self):
        self.parts = []
        self.length = 0
        self.ranges = []  # (start, end, frozenset(ids)) in output bytes

    def put(self, b: bytes):
        self.parts.append(b)
        self.length += len(b)

    def text(self) -> bytes:
        return b"".join(self.parts)


def _span(src, start, end, children, edits, out: Rendered):
    """[start, end) of src with the edits applied and the children that no edit touches rendered."""
    events = [(s, 0, e, new) for s, e, new in edits]
    events += [(g.start, 1, g.end, g) for g in children if not _overlaps(edits, g)]
    events.sort(key=lambda x: (x[0], x[1]))
    pos = start
    for s, kind, e, payload in events:
        if s < pos:
            continue
        out.put(src[pos:s])
        if kind == 0:
            out.put(payload.encode())
        else:
            _group(src, payload, out)
        pos = e
    out.put(src[pos:end])


# How each side of a group's ternary opens (each closes with one parenthesis): a deletion is void;
# a condition's sides are all cast to bool, so that a negation (a bool) and an original of another
# type (an optional, a pointer) meet as bools rather than the bool being converted to that type.
OPEN = {"expr": b"(", "void": b"(void)(", "bool": b"static_cast<bool>("}


def _group(src, g: _Group, out: Rendered):
    begin = out.length
    style = "block" if any(m.style == "block" for m in g.mutants) else \
        "void" if any(m.style == "void" for m in g.mutants) else \
        "bool" if any(m.style == "bool" for m in g.mutants) else "expr"
    if style == "block":
        m = g.mutants[0]
        out.put(f"{{ if (!{SWITCH}({m.id})) ".encode())
        _span(src, g.start, g.end, g.children, [], out)
        out.put(b" }")
        out.ranges.append((begin, out.length, frozenset([m.id])))
        return
    out.put(b"(")
    for m in g.mutants:
        out.put(f"{SWITCH}({m.id}) ? ".encode())
        vstart = out.length
        out.put(OPEN[style])
        if style == "void" and m.style == "void":
            out.put(b"0")
        else:
            _span(src, g.start, g.end, g.children, m.edits, out)
        out.put(b") : ")
        out.ranges.append((vstart, out.length, frozenset([m.id])))
    out.put(OPEN[style])
    _span(src, g.start, g.end, g.children, [], out)
    out.put(b"))")
    out.ranges.append((begin, out.length, frozenset(m.id for m in g.mutants)))


def render(src: bytes, mutants) -> Rendered:
    out = Rendered()
    roots = _tree(mutants)
    _span(src, 0, len(src), roots, [], out)
    return out


_DIAG = re.compile(r"^(?P<path>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|note|warning)?")


def culprits(rendered: Rendered, compiler_output: str, path: str):
    """Mutant ids to drop for the errors in compiler_output that point into `path`'s rendering.
    Returns (ids, unmapped_error_count)."""
    text = rendered.text()
    line_starts = [0] + [i + 1 for i, b in enumerate(text) if b == 10]
    ids, unmapped = set(), 0
    error_lines = []
    for raw in compiler_output.splitlines():
        m = _DIAG.match(raw)
        if not m or not (m.group("sev") == "error" or "required from" in raw):
            continue
        # A header reached through another directory is named as such (flex/../composite_x.hpp).
        if not os.path.normpath(m.group("path")).endswith(path):
            continue
        error_lines.append((int(m.group("line")), int(m.group("col"))))
    for line, col in error_lines:
        if line - 1 >= len(line_starts):
            unmapped += 1
            continue
        off = line_starts[line - 1] + col - 1
        best = None
        for s, e, group in rendered.ranges:
            if s <= off < e and (best is None or e - s < best[1] - best[0]):
                best = (s, e, group)
        if best is None:
            unmapped += 1
        else:
            ids |= best[2]
    return ids, unmapped
