"""Mutation sites from the clang AST (libclang 14, Debian's python3-clang-14).

A *mutant* is one small source change: a list of edits (byte ranges of the original file and
their new text) inside a *site*, the smallest expression or statement whose evaluation can be
switched between the original and the mutant at run time (see schemata.py). Nothing here reads
the source text with regexes: every site is an AST node, and operator tokens are found from the
node's own token stream.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import shlex

import clang.cindex as ci

K = ci.CursorKind

# Operator replacement, by the classes the report groups by.
ARITH = {"+": ["-"], "-": ["+"], "*": ["/"], "/": ["*"], "%": ["/"]}
RELATIONAL = {"<": ["<=", ">="], "<=": ["<", ">"], ">": [">=", "<="], ">=": [">", "<"],
              "==": ["!="], "!=": ["=="]}
LOGICAL = {"&&": ["||"], "||": ["&&"]}
BITWISE = {"&": ["|"], "|": ["&"], "^": ["&"], "<<": [">>"], ">>": ["<<"]}
COMPOUND = {"+=": ["-="], "-=": ["+="], "*=": ["/="], "/=": ["*="], "&=": ["|="], "|=": ["&="],
            "<<=": [">>="], ">>=": ["<<="]}
OPERATOR_CLASS = {}
for table, name in ((ARITH, "arithmetic"), (RELATIONAL, "relational"), (LOGICAL, "logical"),
                    (BITWISE, "bitwise"), (COMPOUND, "arithmetic")):
    for op in table:
        OPERATOR_CLASS[op] = name
REPLACEMENTS = {**ARITH, **RELATIONAL, **LOGICAL, **BITWISE, **COMPOUND}

FLOAT_EPSILON = 1e-3
COMMUTATIVE = {"max", "min", "float_add", "float_mul", "int_add", "int_mul", "float_equal", "int_equal",
               "float_max_pair", "hypot", "swap", "add", "mul"}
ERASERS = {"erase", "remove", "pop_back", "pop_front", "clear", "reset"}


@dataclasses.dataclass
class Mutant:
    file: str            # repository-relative path
    line: int            # 1-based line of the edit
    col: int
    operator: str        # the mutation operator's class, e.g. "relational", "delete-call"
    site: tuple          # (start, end) byte offsets of the switchable site
    edits: list          # [(start, end, new_text)], inside site, non-overlapping, sorted
    style: str           # "expr": value-preserving ternary; "void": statement deletion;
                         # "block": a braced statement run only when the mutant is off;
                         # "bool": a ternary in a truth-value context, every side cast to bool
    function: str        # enclosing function, for the report
    original: str = ""   # the original text of the edited span(s), for the diff
    mutated: str = ""
    id: int = 0

    def key(self) -> str:
        """Stable across runs of the same source: file, enclosing function, operator and text,
        plus the ordinal among identical keys (assigned by the caller)."""
        return f"{self.file}|{self.function}|{self.operator}|{self.original}|{self.mutated}"

    def describe(self) -> str:
        return f"{self.file}:{self.line}:{self.col} {self.operator}: `{self.original}` -> `{self.mutated}`"


def _tokens(cursor):
    return list(cursor.get_tokens())


def _first_token_after(cursor, offset):
    for t in cursor.get_tokens():
        if t.extent.start.offset >= offset:
            return t
    return None


def _is_constexpr_decl(cursor) -> bool:
    """True for a declaration spelled with constexpr/consteval/constinit before its body or '='."""
    for t in cursor.get_tokens():
        if t.spelling in ("{", "=", ";"):
            return False
        if t.spelling in ("constexpr", "consteval", "constinit"):
            return True
    return False


# Ancestors under which a run-time switch cannot compile (constant expressions) or makes no sense.
# (alignof/alignas operands have no cursor kind of their own in libclang 14; a mutant there fails to
# compile and the schema build drops it.)
_CONSTANT_CONTEXTS = {K.CASE_STMT, K.ENUM_CONSTANT_DECL, K.STATIC_ASSERT, K.TEMPLATE_NON_TYPE_PARAMETER}


class _Walker:
    def __init__(self, path, rel, text: bytes):
        self.path = path
        self.rel = rel
        self.text = text
        self.mutants: list[Mutant] = []

    def src(self, start, end) -> str:
        return self.text[start:end].decode()

    def add(self, cursor, operator, site, edits, style, function, at=None):
        start = at if at is not None else edits[0][0]
        line = self.text.count(b"\n", 0, start) + 1
        col = start - (self.text.rfind(b"\n", 0, start) + 1) + 1
        lo, hi = min(s for s, _, _ in edits), max(e for _, e, _ in edits)
        original = self.src(lo, hi)
        mutated, pos = "", lo
        for s, e, new in sorted(edits):
            mutated += self.src(pos, s) + new
            pos = e
        mutated += self.src(pos, hi)
        self.mutants.append(Mutant(self.rel, line, col, operator, site, edits, style, function,
                                   original=original, mutated=mutated))

    def in_file(self, cursor) -> bool:
        f = cursor.location.file
        return f is not None and os.path.realpath(f.name) == self.path

    def extent(self, cursor):
        return cursor.extent.start.offset, cursor.extent.end.offset

    def walk(self, cursor, ancestors, function, constant):
        for child in cursor.get_children():
            if not self.in_file(child):
                # Declarations from headers are skipped; a node of this file is always under a
                # parent of this file or the translation unit.
                continue
            kind = child.kind
            fn = function
            const = constant
            if kind in (K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE, K.CONSTRUCTOR,
                        K.DESTRUCTOR, K.CONVERSION_FUNCTION):
                fn = child.spelling or function
                const = constant or _is_constexpr_decl(child)
            elif kind in (K.VAR_DECL, K.FIELD_DECL) and _is_constexpr_decl(child):
                const = True
            elif kind in _CONSTANT_CONTEXTS:
                const = True
            elif kind == K.IF_STMT:
                toks = _tokens(child)
                if len(toks) > 1 and toks[1].spelling == "constexpr":
                    self.constexpr_branches(child, fn)
            if not const and not self.in_macro(child):
                self.visit(child, cursor, fn)
            self.walk(child, ancestors + [child], fn, const)

    def in_macro(self, cursor) -> bool:
        # A node written by a macro expansion has an extent whose text is not its tokens.
        s, e = self.extent(cursor)
        if e <= s or e > len(self.text):
            return True
        toks = _tokens(cursor)
        if not toks:
            return True
        return self.src(toks[0].extent.start.offset, toks[0].extent.end.offset) != toks[0].spelling

    # ---- operators -------------------------------------------------------------------------
    def visit(self, c, parent, fn):
        kind = c.kind
        if kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            self.binary(c, fn)
        elif kind == K.UNARY_OPERATOR:
            toks = _tokens(c)
            if toks and toks[0].spelling == "!":
                s, e = self.extent(c)
                t = toks[0].extent
                self.add(c, "negate-condition", (s, e), [(t.start.offset, t.end.offset, "")], "bool", fn)
        elif kind in (K.INTEGER_LITERAL, K.FLOATING_LITERAL):
            self.literal(c, fn)
        elif kind in (K.IF_STMT, K.WHILE_STMT, K.DO_STMT, K.CONDITIONAL_OPERATOR):
            self.condition(c, fn)
        elif kind == K.FOR_STMT:
            self.for_bounds(c, fn)
        elif kind == K.CALL_EXPR:
            self.swap_args(c, fn)
        if kind == K.COMPOUND_STMT or kind in (K.IF_STMT, K.FOR_STMT, K.WHILE_STMT):
            self.statement_calls(c, fn, must_not_return=kind == K.COMPOUND_STMT and _must_not_fall_off(parent))

    def binary(self, c, fn):
        children = list(c.get_children())
        if len(children) != 2:
            return
        lhs, rhs = children
        tok = _first_token_after(c, lhs.extent.end.offset)
        if tok is None or tok.spelling not in REPLACEMENTS:
            return
        s, e = self.extent(c)
        ts, te = tok.extent.start.offset, tok.extent.end.offset
        if not (lhs.extent.end.offset <= ts and te <= rhs.extent.start.offset):
            return
        for new in REPLACEMENTS[tok.spelling]:
            self.add(c, OPERATOR_CLASS[tok.spelling], (s, e), [(ts, te, new)], "expr", fn)

    def literal(self, c, fn):
        toks = _tokens(c)
        if len(toks) != 1:
            return
        spelling = toks[0].spelling
        s, e = self.extent(c)
        if c.kind == K.INTEGER_LITERAL:
            digits = spelling.rstrip("uUlLzZ").replace("'", "")
            try:
                value = int(digits, 0)
            except ValueError:
                return
            candidates = [0, 1, value + 1, value - 1]
            seen = []
            for v in candidates:
                if v != value and v not in seen and v >= 0:
                    seen.append(v)
            for v in seen[:3]:
                self.add(c, "constant", (s, e), [(s, e, f"decltype({spelling})({v})")], "expr", fn)
        else:
            body = spelling.rstrip("fFlL")
            try:
                value = float(body)
            except ValueError:
                return
            out = []
            for v in (0.0, 1.0, value * (1 + FLOAT_EPSILON), value * (1 - FLOAT_EPSILON)):
                if v != value and v not in out:
                    out.append(v)
            for v in out[:3]:
                self.add(c, "constant", (s, e), [(s, e, f"decltype({spelling})({v!r})")], "expr", fn)

    def condition(self, c, fn):
        toks = _tokens(c)
        if c.kind == K.IF_STMT and len(toks) > 1 and toks[1].spelling == "constexpr":
            return
        children = list(c.get_children())
        if c.kind == K.DO_STMT:
            cond = children[-1] if children else None
        else:
            cond = children[0] if children else None
        if cond is None or cond.kind in (K.VAR_DECL, K.DECL_STMT) or not cond.kind.is_expression():
            return
        s, e = self.extent(cond)
        if e <= s:
            return
        # "bool": a condition need not be a bool (an optional, a pointer); the schema's ?: between
        # !(cond) and cond would convert the bool to cond's type (optional(false) is engaged, so the
        # mutant would run the original).
        self.add(cond, "negate-condition", (s, e), [(s, s, "!("), (e, e, ")")], "bool", fn, at=s)

    def for_bounds(self, c, fn):
        # The condition is the child between the header's two semicolons.
        toks = _tokens(c)
        depth, semis = 0, []
        for t in toks:
            if t.spelling == "(":
                depth += 1
            elif t.spelling == ")":
                depth -= 1
                if depth == 0:
                    break
            elif t.spelling == ";" and depth == 1:
                semis.append(t.extent.start.offset)
        if len(semis) != 2:
            return
        for child in c.get_children():
            s, e = self.extent(child)
            if semis[0] < s and e <= semis[1] and child.kind == K.BINARY_OPERATOR:
                kids = list(child.get_children())
                tok = _first_token_after(child, kids[0].extent.end.offset) if len(kids) == 2 else None
                if tok is None or tok.spelling not in ("<", "<=", "!=", ">", ">="):
                    return
                rs, re_ = self.extent(kids[1])
                for delta in ("+ 1", "- 1"):
                    self.add(child, "off-by-one", (s, e), [(rs, rs, "("), (re_, re_, f") {delta}")], "expr", fn,
                             at=rs)
                return

    def swap_args(self, c, fn):
        # Swapping the operands of a symmetric call (==, max, add, ...) gives the same program.
        name = c.spelling or ""
        if name.startswith("operator") or name in COMMUTATIVE:
            return
        args = list(c.get_arguments())
        for a, b in zip(args, args[1:]):
            if a.type.get_canonical().spelling != b.type.get_canonical().spelling:
                continue
            sa, ea = self.extent(a)
            sb, eb = self.extent(b)
            ta, tb = self.src(sa, ea), self.src(sb, eb)
            if not ta or not tb or ta == tb or ea > sb or "\n" in ta + tb:
                continue
            if a.kind in (K.INTEGER_LITERAL, K.FLOATING_LITERAL) and b.kind == a.kind:
                continue
            s, e = self.extent(c)
            self.add(c, "swap-arguments", (s, e), [(sa, ea, tb), (sb, eb, ta)], "expr", fn)

    def statement_calls(self, c, fn, must_not_return=False):
        """Calls whose result is unused: children of a block, or the body of if/for/while.

        must_not_return: c is the body of a function that control may not flow off (Note [A
        deleted last call must not make a function fall off its end])."""
        stmts = list(c.get_children())
        for i, st in enumerate(stmts):
            if must_not_return and i == len(stmts) - 1:
                continue
            call = st
            while call.kind == K.UNEXPOSED_EXPR and len(list(call.get_children())) == 1:
                call = list(call.get_children())[0]
            if call.kind != K.CALL_EXPR or not self.in_file(st):
                continue
            name = call.spelling or ""
            if name.startswith("operator") or not name:
                continue
            s, e = self.extent(st)
            if self.text[e:].lstrip()[:1] != b";":
                continue  # not an expression statement (a condition, an argument, ...)
            if "panic" in name or name in ("fail", "unreachable"):
                op = "delete-panic"
            elif name in ERASERS:
                op = "delete-erase"
            else:
                op = "delete-call"
            self.add(call, op, (s, e), [(s, e, "(void)0")], "void", fn)

    def constexpr_branches(self, c, fn):
        # Deleting a branch that returns would fall off the function; only branches that do work
        # and go on are deleted ("forgot this case").
        for child in c.get_children():
            if child.kind != K.COMPOUND_STMT:
                continue
            if any(t.spelling in ("return", "co_return", "throw") for t in child.get_tokens()):
                continue
            s, e = self.extent(child)
            body = self.src(s, e)
            if len(body) < 3:
                continue
            self.add(child, "delete-constexpr-branch", (s, e), [(s, e, "{}")], "block", fn)


# Note [A deleted last call must not make a function fall off its end]
# Deleting the last statement of a [[noreturn]] function (a panic helper), or of a non-void one,
# lets control flow off its end: undefined behaviour, and not a bug anyone could plant. The
# compiler reads it as "this branch never runs" and folds the schema's switch away, so in the
# mutation build the mutant ran the original code and "survived" (0d8c1eaefaa5,
# panic_could_not_allocate), while the same edit planted by hand made the function return
# garbage into its caller. Such mutants are not generated.
_FUNCTION_KINDS = (K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE, K.CONVERSION_FUNCTION)


def _is_noreturn(decl) -> bool:
    # libclang shows [[noreturn]] as an unexposed attribute child; a definition may inherit it
    # from an earlier declaration.
    for d in (decl, decl.canonical):
        for ch in d.get_children():
            if ch.kind == K.UNEXPOSED_ATTR and any(t.spelling in ("noreturn", "__noreturn__")
                                                   for t in ch.get_tokens()):
                return True
    return False


def _must_not_fall_off(fn_cursor) -> bool:
    if fn_cursor is None or fn_cursor.kind not in _FUNCTION_KINDS:
        return False
    return _is_noreturn(fn_cursor) or fn_cursor.result_type.kind not in (ci.TypeKind.VOID, ci.TypeKind.INVALID)


def compile_args(entry, source_root):
    """The compile_commands.json entry's flags for libclang: no compiler, output or source, and no
    precompiled header (CMake's `-include .../cmake_pch.hxx`): clang's driver would pick up GCC's
    cmake_pch.hxx.gch beside it and fail to read it, and each file includes what it needs."""
    argv = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    out, skip = [], False
    for i, a in enumerate(argv[1:], start=1):
        if skip:
            skip = False
            continue
        if a in ("-o", "-c"):
            skip = a == "-o"
            continue
        if a == "-include" and i + 1 < len(argv) and argv[i + 1].endswith("cmake_pch.hxx"):
            skip = True
            continue
        if a == entry["file"] or a.endswith((".cpp", ".cc")):
            continue
        out.append(a)
    return out


def mutants_of(path, rel, args) -> list[Mutant]:
    index = ci.Index.create()
    lang = ["-x", "c++"] if path.endswith((".hpp", ".h")) else []
    tu = index.parse(path, args=lang + args + ["-Wno-everything"],
                     options=ci.TranslationUnit.PARSE_INCOMPLETE)
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        raise RuntimeError(f"{rel}: libclang could not parse: {errors[0]}")
    text = open(path, "rb").read()
    walker = _Walker(os.path.realpath(path), rel, text)
    walker.walk(tu.cursor, [], "", False)
    # Drop exact duplicates (a node reached twice through an unexposed wrapper).
    seen, unique = set(), []
    for m in walker.mutants:
        k = (m.site, tuple(m.edits), m.operator)
        if k not in seen:
            seen.add(k)
            unique.append(m)
    return unique


def stable_key(m: Mutant, ordinal: int) -> str:
    return hashlib.sha1(f"{m.key()}|{ordinal}".encode()).hexdigest()[:12]
