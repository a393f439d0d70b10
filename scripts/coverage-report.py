#!/usr/bin/env python3
"""The engine's coverage table, from `llvm-cov export -summary-only` (called by scripts/coverage).

Prints the per-file table of engine/src and engine/include (lines, branches, functions) and the
engine totals; --mode report writes docs/COVERAGE.md, --mode update also the baseline, --mode check
compares the engine line coverage with the baseline and exits 1 when it is below it by more than
the tolerance.

docs/COVERAGE.md also lists every unexecuted line of engine/src outside cuda/ (issue 12: each gets a
test or a reason), from `llvm-cov export -format=lcov` over the instrumented executables of the build
directory that holds the summary, each run with its reason from docs/coverage-exceptions.json
({"file", "lines": "a-b", "reason"} entries) or NO REASON GIVEN.
"""
import argparse
import datetime
import glob
import json
import os
import subprocess
import sys

ENGINE_DIRS = ("engine/src/", "engine/include/")
CUDA_DIR = "engine/src/backends/cuda/"


def instrumented_objects(build):
    """The executables of the build with a coverage mapping, found as scripts/coverage finds them."""
    found = []
    for dirpath, dirnames, filenames in os.walk(build):
        dirnames[:] = [d for d in dirnames if d != "CMakeFiles" and os.path.join(dirpath, d) != os.path.join(build, "profiles")]
        for name in filenames:
            path = os.path.join(dirpath, name)
            if not os.path.isfile(path) or os.path.islink(path) or not os.access(path, os.X_OK):
                continue
            sections = subprocess.run(["readelf", "-S", path], capture_output=True, text=True).stdout
            if "__llvm_covmap" in sections:
                found.append(path)
    return sorted(found)


def unexecuted_src_lines(profdata, objects, root):
    """{engine/src file (outside cuda/): sorted unexecuted line numbers}, as llvm-cov show counts them."""
    cmd = ["llvm-cov-16", "export", "-format=lcov", "-instr-profile", profdata,
           "-ignore-filename-regex=/backends/cuda/", objects[0]]
    for o in objects[1:]:
        cmd += ["-object", o]
    cmd.append(os.path.join(root, "engine/src"))
    lcov = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    missed, current = {}, None
    for line in lcov.splitlines():
        if line.startswith("SF:"):
            current = os.path.relpath(line[3:], root)
        elif line.startswith("DA:") and current and current.startswith("engine/src/") and not current.startswith(CUDA_DIR):
            number, count = line[3:].split(",")[:2]
            if int(count) == 0:
                missed.setdefault(current, set()).add(int(number))
    return {f: sorted(lines) for f, lines in missed.items()}


def load_exceptions(path):
    """[(file, first, last, reason)] from docs/coverage-exceptions.json; [] when there is none."""
    if not os.path.exists(path):
        return []
    out = []
    with open(path) as f:
        for e in json.load(f):
            first, _, last = str(e["lines"]).partition("-")
            out.append((e["file"], int(first), int(last or first), e["reason"]))
    return out


def reasoned_runs(missed, exceptions):
    """[(file, first, last, reason or None)]: the unexecuted lines in runs of consecutive lines that
    share a reason (None: no exception names them)."""
    runs = []
    for file in sorted(missed):
        for n in missed[file]:
            reason = next((r for f, a, b, r in exceptions if f == file and a <= n <= b), None)
            if runs and runs[-1][0] == file and runs[-1][2] == n - 1 and runs[-1][3] == reason:
                runs[-1][2] = n
            else:
                runs.append([file, n, n, reason])
    return [tuple(r) for r in runs]


def stale_exceptions(missed, exceptions):
    """The exception entries that name no unexecuted line any more (a test reaches them now)."""
    return [(f, a, b) for f, a, b, _ in exceptions if not any(a <= n <= b for n in missed.get(f, ()))]


def pct(covered, count):
    return 100.0 * covered / count if count else 100.0


def cell(covered, count):
    return f"{pct(covered, count):6.2f}% {covered:>5}/{count:<5}" if count else "      -            "


def engine_files(summary, root):
    rows = []
    for f in summary["data"][0]["files"]:
        rel = os.path.relpath(f["filename"], root)
        if not rel.startswith(ENGINE_DIRS) or rel.startswith(CUDA_DIR):
            continue
        s = f["summary"]
        rows.append({
            "file": rel,
            "lines": (s["lines"]["covered"], s["lines"]["count"]),
            "branches": (s["branches"]["covered"], s["branches"]["count"]),
            "functions": (s["functions"]["covered"], s["functions"]["count"]),
        })
    return sorted(rows, key=lambda r: r["file"])


def totals(rows):
    return {k: (sum(r[k][0] for r in rows), sum(r[k][1] for r in rows)) for k in ("lines", "branches", "functions")}


def table_text(rows, total):
    width = max([len(r["file"]) for r in rows] + [len("engine total")])
    out = [f"{'file':<{width}}  {'lines':^19}  {'branches':^19}  {'functions':^19}  missed"]
    for r in rows + [dict(file="engine total", **total)]:
        missed = r["lines"][1] - r["lines"][0]
        out.append(f"{r['file']:<{width}}  {cell(*r['lines'])}  {cell(*r['branches'])}  {cell(*r['functions'])}  {missed}")
    return "\n".join(out)


def md_cell(covered, count):
    return f"{pct(covered, count):.2f} % ({covered}/{count})" if count else "-"


def unexecuted_section(runs, stale, exceptions_rel):
    span = lambda a, b: f"{a}" if a == b else f"{a}-{b}"
    total = sum(b - a + 1 for _, a, b, _ in runs)
    bare = sum(b - a + 1 for _, a, b, r in runs if r is None)
    lines = [
        "## Unexecuted engine/src lines",
        "",
        f"Every line of `engine/src` outside `{CUDA_DIR}` that no test executed, as `llvm-cov show` counts",
        "lines (a line counts as executed when any instantiation in any test executable ran it; the",
        "per-file figures below come from llvm-cov's summary, which can count a few more in templates and",
        f"macros), with the reason no test reaches it from `{exceptions_rel}`. {total} line(s),",
        f"{bare} without a reason.",
        "",
        "| file | lines | reason |",
        "|---|---|---|",
    ]
    lines += [f"| `{f}` | {span(a, b)} | {r if r is not None else '**NO REASON GIVEN**'} |" for f, a, b, r in runs]
    if not runs:
        lines.append("| - | - | every line was executed |")
    lines.append("")
    if stale:
        lines += [f"Entries of `{exceptions_rel}` that name no unexecuted line any more (a test reaches them now):",
                  ""] + [f"- `{f}` {span(a, b)}" for f, a, b in stale] + [""]
    return lines


def markdown(rows, total, unmapped, args, unexecuted=()):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Engine coverage",
        "",
        f"Generated by `{args.command}` on {now} (clang/llvm 16 source-based coverage, preset `coverage`:",
        f"`-fprofile-instr-generate -fcoverage-mapping -O1`, CUDA off), over the tests of",
        f"`ctest -L '{args.labels}' -LE '{args.exclude_labels}'` (RapidCheck seed fixed: `RC_PARAMS=seed=1`),",
        f"{args.objects} instrumented executables.",
        "Do not edit: rerun the command. HTML report: `build/coverage/html/index.html`.",
        "",
        f"Scope: `engine/src` and `engine/include`; `{CUDA_DIR}` is not built without CUDA and is left out.",
        "",
        "## Engine total",
        "",
        "| lines | branches | functions |",
        "|---|---|---|",
        f"| {md_cell(*total['lines'])} | {md_cell(*total['branches'])} | {md_cell(*total['functions'])} |",
        "",
    ]
    if unmapped:
        lines += [
            "## Code left out of the mapping",
            "",
            "clang crashes generating the coverage mapping of some functions (\"File exit not handled before",
            "popRegions\", llvm/llvm-project#54907: an early `return` of a class-type value from an `if` in a",
            "lambda of a template). `scripts/coverage-cxx` recompiles such a file with those functions (and",
            "their lambdas) left out of instrumentation, or as a last resort without the mapping; that code",
            "is in no figure here. Left out:",
            "",
        ] + [f"- `{f}`: {what}" for f, what in unmapped] + [""]
    listed = {r["file"] for r in rows}
    silent = sorted(p for d in ENGINE_DIRS for p in glob.glob(os.path.join(args.root, d, "**", "*"), recursive=True)
                    if os.path.isfile(p) and os.path.relpath(p, args.root) not in listed
                    and not os.path.relpath(p, args.root).startswith(CUDA_DIR))
    if silent:
        lines += ["## Engine files without code regions", "",
                  "No test executable maps a line of these (declarations only, or code that only the CUDA build",
                  "compiles):", ""]
        lines += [", ".join(f"`{os.path.relpath(p, args.root)}`" for p in silent), ""]
    worst = sorted((r for r in rows if r["lines"][1] > r["lines"][0]),
                   key=lambda r: (r["lines"][0] - r["lines"][1], r["file"]))[:10]
    lines += ["## Most uncovered lines", "", "| file | uncovered lines | lines |", "|---|---|---|"]
    lines += [f"| `{r['file']}` | {r['lines'][1] - r['lines'][0]} | {md_cell(*r['lines'])} |" for r in worst]
    lines += [""] + list(unexecuted)
    lines += ["## Per file", "", "| file | lines | branches | functions |", "|---|---|---|---|"]
    lines += [f"| `{r['file']}` | {md_cell(*r['lines'])} | {md_cell(*r['branches'])} | {md_cell(*r['functions'])} |"
              for r in rows]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    for a in ("--summary", "--root", "--unmapped", "--baseline", "--command", "--labels", "--exclude-labels",
              "--markdown", "--objects"):
        ap.add_argument(a, required=True)
    ap.add_argument("--profdata", help="default: coverage.profdata next to --summary")
    ap.add_argument("--exceptions", help="default: docs/coverage-exceptions.json under --root")
    ap.add_argument("--mode", choices=("report", "check", "update"), required=True)
    ap.add_argument("--tolerance", type=float, default=0.1)
    args = ap.parse_args()

    with open(args.summary) as f:
        rows = engine_files(json.load(f), args.root)
    if not rows:
        print("coverage: no engine file in the report (were the objects built with -fcoverage-mapping?)")
        return 1
    with open(args.unmapped) as f:
        unmapped = sorted({tuple((l.rstrip("\n").split("\t") + ["whole file"])[:2]) for l in f if l.strip()})
    total = totals(rows)
    print(table_text(rows, total))
    for f, what in unmapped:
        print(f"coverage: left out of the mapping (clang crash, llvm#54907): {f}: {what}")

    build = os.path.dirname(os.path.abspath(args.summary))
    profdata = args.profdata or os.path.join(build, "coverage.profdata")
    exceptions_path = args.exceptions or os.path.join(args.root, "docs", "coverage-exceptions.json")
    objects = instrumented_objects(build)
    if not objects:
        print(f"coverage: no instrumented executable under {build}")
        return 1
    missed = unexecuted_src_lines(profdata, objects, args.root)
    exceptions = load_exceptions(exceptions_path)
    runs = reasoned_runs(missed, exceptions)
    stale = stale_exceptions(missed, exceptions)
    unexecuted = unexecuted_section(runs, stale, os.path.relpath(exceptions_path, args.root))
    bare = [(f, a, b) for f, a, b, r in runs if r is None]
    print(f"coverage: {sum(b - a + 1 for _, a, b, _ in runs)} unexecuted engine/src line(s) outside cuda/, "
          f"{sum(b - a + 1 for _, a, b in bare)} without a reason in {os.path.relpath(exceptions_path, args.root)}")
    for f, a, b in bare:
        print(f"coverage: NO REASON GIVEN: {f}:{a}" + (f"-{b}" if b != a else ""))

    line_pct = round(pct(*total["lines"]), 2)
    rc = 0
    if args.mode in ("report", "update"):
        with open(args.markdown, "w") as f:
            f.write(markdown(rows, total, unmapped, args, unexecuted))
        print(f"coverage: wrote {os.path.relpath(args.markdown, args.root)}")
    if args.mode == "update":
        baseline = {
            "engine_lines_percent": line_pct,
            "engine_branches_percent": round(pct(*total["branches"]), 2),
            "engine_functions_percent": round(pct(*total["functions"]), 2),
            "command": args.command,
            "labels": args.labels,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        }
        with open(args.baseline, "w") as f:
            json.dump(baseline, f, indent=2)
            f.write("\n")
        print(f"coverage: wrote {os.path.relpath(args.baseline, args.root)}")
    if args.mode == "check":
        with open(args.baseline) as f:
            base = json.load(f)["engine_lines_percent"]
        floor = base - args.tolerance
        verdict = "ok" if line_pct >= floor else "FAILED"
        print(f"coverage: check {verdict}: engine lines {line_pct:.2f} % against baseline {base:.2f} % "
              f"(floor {floor:.2f} %)")
        rc = 0 if line_pct >= floor else 1
    print(f"coverage: engine lines {pct(*total['lines']):.2f} % ({total['lines'][0]}/{total['lines'][1]}), "
          f"branches {pct(*total['branches']):.2f} %, functions {pct(*total['functions']):.2f} %"
          + (f"; {len(unmapped)} file(s) partly unmapped (see above)" if unmapped else ""))
    return rc


if __name__ == "__main__":
    sys.exit(main())
