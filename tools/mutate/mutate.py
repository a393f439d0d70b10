#!/usr/bin/env python3
"""scripts/mutate: mutation testing of engine/src (or oracle/) by the ctest labels unit|property|corpus|sizes-quick.

Steps (each prints progress; README "Mutation testing"):
  1. copy the working tree to build/mutate/src (files rewritten only when they changed, so that
     a second run rebuilds only what changed);
  2. find every mutant in the scope's sources from the clang AST (sites.py);
  3. render each file as a mutant schema (schemata.py) and build build/mutate/build once, with
     tools/mutate/mutation_switch.hpp force-included; a mutant that does not compile is dropped
     ("not compiled") and its file rendered again;
  4. trace: run the labels once with no mutant live, recording which tests reach which sites;
     a mutant no test reaches is "not covered";
  5. run each covered mutant (or a deterministic sample, --sample N) with CROSSGRAD_MUTANT=<id>:
     ctest on the tests that reach it, --stop-on-failure, a per-test timeout; a failure, crash or
     timeout kills it;
  6. a survivor whose object code equals the original's (same compile command, same path) is
     "equivalent";
  7. write the JSON results and the markdown report (report.py).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402
import schemata  # noqa: E402
import sites  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SWITCH_HEADER = os.path.join(REPO, "tools", "mutate", "mutation_switch.hpp")

SCOPES = {
    # Cuda kernels cannot run here; their mutants would all be "not covered".
    "engine": {"globs": ["engine/src/**/*.cpp", "engine/src/**/*.hpp"], "exclude": "/cuda/",
               "target": "crossgrad_engine"},
    "oracle": {"globs": ["oracle/src/**/*.cpp", "oracle/src/**/*.hpp", "oracle/include/**/*.hpp"],
               "exclude": None, "target": "crossgrad_oracle"},
}


def log(msg):
    print(f"mutate: {msg}", flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, text=True, capture_output=True, **kw)


# ---- 1. the copy -------------------------------------------------------------------------------
def sync_copy(dest, rendered_here):
    """Brings dest up to date with the working tree, leaving alone the files that are rendered as
    schemata afterwards (so that an unchanged schema is not rewritten and rebuilt)."""
    files = run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO).stdout.split("\0")
    changed = 0
    for rel in filter(None, files):
        if rel in rendered_here:
            continue
        src = os.path.join(REPO, rel)
        if not os.path.isfile(src) or os.path.islink(src):
            continue
        dst = os.path.join(dest, rel)
        data = open(src, "rb").read()
        if os.path.exists(dst) and open(dst, "rb").read() == data:
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(data)
        shutil.copymode(src, dst)
        changed += 1
    return changed


def write_if_changed(path, data: bytes):
    if os.path.exists(path) and open(path, "rb").read() == data:
        return False
    # A directory whose every file is a schema gets none from sync_copy (a fresh copy of a tree
    # where, e.g., engine/src/backends/ndarray/ holds only mutated files).
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return True


# ---- 2. the mutants ----------------------------------------------------------------------------
def scope_files(scope):
    cfg = SCOPES[scope]
    out = set()
    for g in cfg["globs"]:
        for f in glob.glob(os.path.join(REPO, g), recursive=True):
            rel = os.path.relpath(f, REPO)
            if cfg["exclude"] and cfg["exclude"] in f:
                continue
            out.add(rel)
    return sorted(out)


def libclang_args(compile_db):
    entries = json.load(open(compile_db))
    # The engine archive's own flags: other targets compile engine sources too (the LibTorch
    # plugin, src/backends/libtorch/aten/, without engine/src on its include path).
    def of_engine(e):
        return "/engine/src/" in e["file"] and "crossgrad_engine.dir" in e.get("output", e.get("command", ""))
    engine = [e for e in entries if of_engine(e)] or [e for e in entries if "/engine/src/" in e["file"]]
    oracle = [e for e in entries if "/oracle/src/" in e["file"]]
    return {"engine": sites.compile_args(engine[0], REPO),
            "oracle": sites.compile_args((oracle or engine)[0], REPO)}


def find_mutants(files, args):
    all_mutants = []
    for rel in files:
        ms = sites.mutants_of(os.path.join(REPO, rel), rel, args)
        ordinals = {}
        for m in ms:
            k = m.key()
            ordinals[k] = ordinals.get(k, 0) + 1
            m.key_hash = sites.stable_key(m, ordinals[k])
        all_mutants.extend(ms)
    for i, m in enumerate(all_mutants, start=1):
        m.id = i
    return all_mutants


# ---- 3. the schemata build ---------------------------------------------------------------------
def render_all(copy_root, by_file, dropped):
    rendered = {}
    changed = []
    for rel, ms in by_file.items():
        live = [m for m in ms if m.id not in dropped]
        src = open(os.path.join(REPO, rel), "rb").read()
        r = schemata.render(src, live)
        rendered[rel] = r
        if write_if_changed(os.path.join(copy_root, rel), r.text()):
            changed.append(rel)
    return rendered, changed


def configure(copy_root, build_dir):
    flags = f"-include {SWITCH_HEADER}"
    cmd = ["cmake", "-S", copy_root, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
           "-DCMAKE_CXX_COMPILER=g++", f"-DCMAKE_CXX_FLAGS={flags}", "-DCROSSGRAD_CUDA=OFF",
           "-DCROSSGRAD_BUILD_TESTS=ON", "-DCROSSGRAD_BUILD_BENCH=OFF", "-DCROSSGRAD_BUILD_FUZZERS=OFF",
           "-DCROSSGRAD_MUTATION_SAMPLE=OFF"]
    r = run(cmd)
    if r.returncode != 0:
        sys.exit(f"mutate: configure failed:\n{r.stdout[-3000:]}{r.stderr[-3000:]}")


def build_schemata(copy_root, build_dir, by_file, target, jobs, log_path, cache_path):
    """Builds the scope's library from its schemata, dropping the mutants that do not compile. The
    keys dropped last time (cache_path) are dropped from the start, so that a rerun renders what
    it built last time and rebuilds nothing that did not change."""
    known = set(json.load(open(cache_path))) if os.path.exists(cache_path) else set()
    dropped = {m.id for ms in by_file.values() for m in ms if m.key_hash in known}
    reasons = {i: "does not compile" for i in dropped}
    for round_ in range(1, 30):
        rendered, changed = render_all(copy_root, by_file, dropped)
        log(f"build round {round_}: {len(changed)} file(s) rendered, {len(dropped)} mutant(s) dropped so far")
        r = run(["cmake", "--build", build_dir, "--target", target, "-j", str(jobs), "--", "-k"])
        with open(log_path, "a") as f:
            f.write(r.stdout + r.stderr)
        if r.returncode == 0:
            with open(cache_path, "w") as f:
                json.dump(sorted(m.key_hash for ms in by_file.values() for m in ms if m.id in dropped), f)
            return dropped, reasons
        output = r.stdout + r.stderr
        newly, unmapped = set(), 0
        for rel, rend in rendered.items():
            ids, un = schemata.culprits(rend, output, rel)
            newly |= ids
            unmapped += un
        newly -= dropped
        if not newly:
            tail = "\n".join(l for l in output.splitlines() if "error" in l)[:4000]
            sys.exit(f"mutate: the schemata build fails and no mutant is to blame:\n{tail}")
        for i in newly:
            reasons[i] = "does not compile"
        dropped |= newly
    sys.exit("mutate: the schemata build did not converge in 30 rounds")


# ---- 4. trace ----------------------------------------------------------------------------------
# "  3/40 Test  #45: <name, may hold spaces> ....   Passed    0.12 sec"; the name is read from the
# test number, the verdict from the end of the line.
_RESULT = re.compile(r"^\s*\d+/\d+ Test\s+#(?P<num>\d+): .*?[\s.](?P<status>Passed|\*\*\*\S.*?|Not Run.*?)"
                     r"\s+(?P<secs>[\d.]+) sec\s*$")


def list_tests(build_dir, labels):
    r = run(["ctest", "--test-dir", build_dir, "-L", labels, "--show-only=json-v1"])
    data = json.loads(r.stdout)
    tests = {}
    # A test's number (ctest's "Test #n") is its position in the whole list; but `-I` together with
    # `-L` counts positions in the label's list, so each test keeps both.
    full = json.loads(run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"]).stdout)
    number = {t["name"]: i for i, t in enumerate(full["tests"], start=1)}
    for index, t in enumerate(data["tests"], start=1):
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        locks = list(props.get("RESOURCE_LOCK", [])) + (["*serial*"] if props.get("RUN_SERIAL") else [])
        tests[t["name"]] = {"number": number[t["name"]], "index": index, "locks": locks,
                            "command": "\x1f".join(t.get("command", []))}
    return tests


def trace(build_dir, labels, jobs, trace_dir, names):
    shutil.rmtree(trace_dir, ignore_errors=True)
    os.makedirs(trace_dir)
    env = dict(os.environ, CROSSGRAD_MUTATION_TRACE=trace_dir)
    env.pop("CROSSGRAD_MUTANT", None)
    r = run(["ctest", "--test-dir", build_dir, "-L", labels, "-j", str(jobs), "--output-on-failure"], env=env)
    durations = {}
    for line in r.stdout.splitlines():
        m = _RESULT.match(line)
        if m:
            durations[names[int(m.group("num"))]] = float(m.group("secs"))
    if r.returncode != 0:
        sys.exit("mutate: the tests fail with no mutant live; fix them first:\n" + r.stdout[-4000:])
    return durations


def _credited_by_path(exe, tests):
    """Tests that name a directory holding `exe` (e.g. install.contract_program's -DWORK_DIR=...):
    a program such a test builds and runs is credited to it when its parent chain is lost."""
    best, names = 0, set()
    for name, t in tests.items():
        for arg in t["command"].split("\x1f"):
            path = arg.split("=", 1)[-1]
            if len(path) > 1 and os.path.isabs(path) and exe.startswith(path.rstrip("/") + "/"):
                if len(path) > best:
                    best, names = len(path), {name}
                elif len(path) == best:
                    names.add(name)
    return names


def read_traces(trace_dir, tests):
    by_command = {t["command"].rstrip("\x1f"): name for name, t in tests.items()}
    reached = {}  # mutant id -> set of test names
    unknown = 0
    for path in glob.glob(os.path.join(trace_dir, "*.trace")):
        # split("\n"), not splitlines(): that also splits at \x1e, the chain's separator, and
        # left only the process's own command line, so a death test's child or a helper process
        # was credited by path (install.contract_program) instead of by its parent test.
        text = open(path).read()
        if not text:
            continue
        lines = text.split("\n")
        chain = lines[0].split("\x1e")
        names = set()
        for cmd in chain:
            name = by_command.get(cmd.rstrip("\x1f"))
            if name:
                names = {name}
                break
        if not names:
            names = _credited_by_path(chain[0].split("\x1f")[0], tests)
        if not names:
            unknown += 1
            names = {"*"}  # no test found: counts as covering, runs every test
        for m_id in trace_ids(lines):
            reached.setdefault(m_id, set()).update(names)
    return reached, unknown


def trace_ids(lines):
    """The mutant ids a trace file's lines name (line 0 is the process's command chain)."""
    return {int(l) for l in lines[1:] if l.strip().isdigit()}


# ---- 5. runs -----------------------------------------------------------------------------------
def run_mutant(build_dir, labels, m_id, indices, timeout, jobs, names):
    """Runs the tests at `indices` of the label's list (ctest -L ... -I) with the mutant live."""
    env = dict(os.environ, CROSSGRAD_MUTANT=str(m_id))
    env.pop("CROSSGRAD_MUTATION_TRACE", None)
    select = "0,0,0," + ",".join(str(n) for n in sorted(indices))
    start = time.time()
    try:
        r = subprocess.run(["ctest", "--test-dir", build_dir, "-L", labels, "-I", select,
                            "--stop-on-failure", "--timeout", str(timeout), "-j", str(jobs)],
                           env=env, text=True, capture_output=True, timeout=timeout * len(indices) + 120)
        out = r.stdout
    except subprocess.TimeoutExpired:
        return {"status": "killed", "how": "timeout", "by": None, "seconds": round(time.time() - start, 2)}
    seconds = round(time.time() - start, 2)
    ran = sum(1 for line in out.splitlines() if _RESULT.match(line))
    # ctest's closing list names the failed test and why: "\t155 - Suite.Name (Subprocess aborted)".
    failed = re.findall(r"^\s+(\d+) - .*\((Failed|Timeout|Subprocess aborted|SEGFAULT|ILLEGAL|BUS_ERROR|"
                        r"NUMERICAL|OTHER_FAULT|Exception|Not Run|[^()]*)\)\s*$", out, re.M)
    if failed:
        num, why = failed[0]
        how = {"Timeout": "timeout", "Failed": "test failed",
               # abort(): an escaped panic, an assert, or a corpus replay's CROSSGRAD-FUZZ-FAILURE
               "Subprocess aborted": "abort"}.get(why, "crash")
        return {"status": "killed", "how": how, "by": names.get(int(num)), "seconds": seconds}
    if r.returncode != 0:
        return {"status": "killed", "how": "ctest failed", "by": None, "seconds": seconds, "tests_run": ran}
    return {"status": "survived", "seconds": seconds, "tests_run": ran}


# ---- 6. equivalence ----------------------------------------------------------------------------
def object_hash(compile_db, equiv_root, rel, source: bytes, dependents):
    """Hash of the objects of the translation units that hold `rel`, compiled from `source`."""
    path = os.path.join(equiv_root, rel)
    with open(path, "wb") as f:
        f.write(source)
    h = hashlib.sha1()
    for entry in dependents:
        argv = shlex.split(entry["command"])
        cpp = entry["file"].replace(REPO + "/", equiv_root + "/")
        out = []
        skip = False
        for a in argv:
            if skip:
                skip = False
                continue
            if a == "-o":
                skip = True
                continue
            # Sources and their private headers come from the copy; generated headers (build/...) and
            # everything else stay where they are.
            for tree in ("engine", "oracle"):
                a = a.replace(f"{REPO}/{tree}/", f"{equiv_root}/{tree}/")
            out.append(a)
        obj = path + ".equiv.o"
        r = run(out[:-1] + [cpp, "-o", obj] if out[-1].endswith(".cpp") else out + ["-o", obj],
                cwd=entry["directory"])
        if r.returncode != 0:
            return None
        h.update(open(obj, "rb").read())
    return h.hexdigest()


def dependents_of(compile_db, rel):
    """The compile commands of the translation units that hold `rel` (itself, or the sources of
    engine/src and oracle/src that include a private header)."""
    roots = (f"{REPO}/engine/src/", f"{REPO}/oracle/src/")
    entries = [e for e in json.load(open(compile_db)) if e["file"].startswith(roots)]
    if rel.endswith(".cpp"):
        return [e for e in entries if e["file"] == os.path.join(REPO, rel)]
    name = os.path.basename(rel)
    return [e for e in entries if name.encode() in open(e["file"], "rb").read()]


def check_equivalence(survivors, by_id, compile_db, equiv_root, jobs):
    """{id: True when the mutant's object code is the original's}. Survivors of different .cpp files
    are checked in parallel; those of a private header compile every file that includes it, so
    they run afterwards, one at a time."""
    if os.path.exists(equiv_root):
        shutil.rmtree(equiv_root)
    for d in ("engine", "oracle"):
        shutil.copytree(os.path.join(REPO, d), os.path.join(equiv_root, d))
    by_file = {}
    for i in survivors:
        by_file.setdefault(by_id[i].file, []).append(i)

    def check_file(rel):
        deps = dependents_of(compile_db, rel)
        src = open(os.path.join(REPO, rel), "rb").read()
        original = object_hash(compile_db, equiv_root, rel, src, deps)
        out = {}
        for i in by_file[rel]:
            mutated = bytearray(src)
            for s, e, new in sorted(by_id[i].edits, reverse=True):
                mutated[s:e] = new.encode()
            hm = object_hash(compile_db, equiv_root, rel, bytes(mutated), deps)
            out[i] = hm is not None and original is not None and hm == original
        with open(os.path.join(equiv_root, rel), "wb") as f:
            f.write(src)
        return out

    verdicts = {}
    sources = [f for f in by_file if not f.endswith(".hpp")]
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        for out in pool.map(check_file, sources):
            verdicts.update(out)
    for f in by_file:
        if f.endswith(".hpp"):
            verdicts.update(check_file(f))
    return verdicts


def why_alive():
    """Hand-written reasons for the mutants left alive, by stable key (docs/mutation-why-alive.json)."""
    path = os.path.join(REPO, "docs", "mutation-why-alive.json")
    return json.load(open(path)) if os.path.exists(path) else {}


# ---- sampling ----------------------------------------------------------------------------------
def sample(ids_by_file, n):
    """A deterministic sample of n mutants, spread over files in proportion to their mutants:
    within a file, mutants in the order of their stable hash (file, function, operator, text)."""
    total = sum(len(v) for v in ids_by_file.values())
    if n >= total:
        return [m for v in ids_by_file.values() for m in v]
    chosen = []
    quotas = {f: max(1, round(n * len(v) / total)) for f, v in ids_by_file.items()}
    for f, v in ids_by_file.items():
        chosen.extend(sorted(v, key=lambda m: m.key_hash)[:quotas[f]])
    return chosen


def hold_work_dir(work):
    """Two runs in one work dir would rebuild each other's tests mid-run and give wrong verdicts:
    the second waits (the lock is released when this process exits)."""
    import fcntl
    fh = open(os.path.join(work, ".lock"), "w")
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        log(f"another scripts/mutate run holds {os.path.relpath(work, REPO)}; waiting for it")
        fcntl.flock(fh, fcntl.LOCK_EX)
    hold_work_dir.handle = fh  # kept open for the life of the process


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scope", choices=sorted(SCOPES), default="engine")
    ap.add_argument("--files", nargs="*", help="only these repository-relative files (default: the scope)")
    # sizes-quick: the size tiers are where Flex's thresholds are crossed (tests/sizes), and the
    # test command runs them; without them a mutant only they kill counted as alive.
    ap.add_argument("--labels", default="unit|property|corpus|sizes-quick", help="ctest labels each mutant runs")
    ap.add_argument("--sample", type=int, default=0, help="run a deterministic sample of N mutants (0: all)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--json", default=None, help="results (default docs/mutation-<scope>.json)")
    ap.add_argument("--markdown", default=None, help="report (default docs/MUTATION.md for engine)")
    ap.add_argument("--work", default=os.path.join(REPO, "build", "mutate"))
    ap.add_argument("--compare", nargs=2, metavar=("A.json", "B.json"))
    ap.add_argument("--list", action="store_true", help="print the mutants and stop")
    ap.add_argument("--markdown-from", metavar="RESULTS.json",
                    help="only rewrite the markdown report from RESULTS.json (after editing the reasons "
                         "in docs/mutation-why-alive.json)")
    ap.add_argument("--ids", help="run only these mutant ids (comma-separated), for debugging")
    ap.add_argument("--keys", help="run only the mutants with these stable keys (comma-separated, as in "
                                   "docs/mutation-why-alive.json), each on the tests that reach it (traced)")
    ap.add_argument("--update", metavar="PREVIOUS.json",
                    help="keep PREVIOUS.json's killed verdicts when the scope's sources are unchanged and "
                         "run the rest again (after tests were added to kill survivors)")
    opts = ap.parse_args()
    # Tests run in their own working directories: a relative --work would scatter the traces there
    # (every mutant then "not covered").
    opts.work = os.path.abspath(opts.work)

    if opts.markdown_from:
        data = json.load(open(opts.markdown_from))
        data["why_alive"] = why_alive()
        path = opts.markdown or os.path.join(REPO, "docs", "MUTATION.md")
        with open(path, "w") as f:
            f.write(report.markdown(data))
        log(f"wrote {os.path.relpath(path, REPO)}")
        return 0
    if opts.compare:
        print(report.compare(json.load(open(opts.compare[0])), json.load(open(opts.compare[1]))))
        return 0

    started = time.time()
    compile_db = os.path.join(REPO, "build", "default", "compile_commands.json")
    if not os.path.exists(compile_db):
        sys.exit("mutate: build/default/compile_commands.json is missing; run scripts/test (or cmake --preset default) first")
    files = opts.files or scope_files(opts.scope)
    log(f"finding mutants in {len(files)} file(s) of {opts.scope} (libclang 14)")
    mutants = find_mutants(files, libclang_args(compile_db)[opts.scope])
    by_id = {m.id: m for m in mutants}
    source_hash = hashlib.sha1(b"".join(open(os.path.join(REPO, f), "rb").read() for f in files)).hexdigest()
    previous = {}
    if opts.update:
        prev = json.load(open(opts.update))
        if prev.get("source_hash") == source_hash:
            previous = {r["key"]: r for r in prev["mutants"] if r["status"] == "killed" and r.get("by")}
            log(f"--update: {len(previous)} killed verdict(s) of {opts.update} kept (sources unchanged)")
        else:
            log(f"--update: the sources changed since {opts.update}; every mutant runs again")
    by_file = {}
    for m in mutants:
        by_file.setdefault(m.file, []).append(m)
    log(f"{len(mutants)} mutants")
    if opts.list:
        for m in mutants:
            print(m.id, m.describe())
        return 0

    copy_root = os.path.join(opts.work, "src")
    build_dir = os.path.join(opts.work, "build")
    os.makedirs(copy_root, exist_ok=True)
    hold_work_dir(opts.work)
    log(f"copying the working tree to {os.path.relpath(copy_root, REPO)}: {sync_copy(copy_root, set(by_file))} file(s) changed")
    configure(copy_root, build_dir)
    build_log = os.path.join(opts.work, "build.log")
    open(build_log, "w").close()
    target = SCOPES[opts.scope]["target"]
    log(f"building the schemata ({target}; log {os.path.relpath(build_log, REPO)})")
    dropped, reasons = build_schemata(copy_root, build_dir, by_file, target, opts.jobs, build_log,
                                      os.path.join(opts.work, f"not-compiled-{opts.scope}.json"))
    log(f"{len(dropped)} mutant(s) do not compile; building the tests")
    r = run(["cmake", "--build", build_dir, "-j", str(opts.jobs)])
    if r.returncode != 0:
        sys.exit("mutate: the test build failed:\n" + (r.stdout + r.stderr)[-4000:])

    tests = list_tests(build_dir, opts.labels)
    names = {t["number"]: name for name, t in tests.items()}
    locked = {n for n, t in tests.items() if t["locks"]}
    previous = {k: r for k, r in previous.items() if r.get("by") not in locked}  # may have raced: rerun
    if opts.ids:
        # A check of a few mutants (e.g. after adding a test to kill them): no trace, every test of
        # the labels, in order, stopping at the first failure.
        log(f"--ids: running every test of -L '{opts.labels}' on each, no trace")
        durations = {}
        reached = {m.id: {"*"} for m in mutants}
    else:
        log(f"tracing: {len(tests)} tests of -L '{opts.labels}' with no mutant live")
        durations = trace(build_dir, opts.labels, opts.jobs, os.path.join(opts.work, "trace"), names)
        reached, unknown = read_traces(os.path.join(opts.work, "trace"), tests)
        log(f"traced: {len(reached)} sites reached; {unknown} trace(s) from helper processes")

    results = {}
    for m in mutants:
        if m.id in dropped:
            results[m.id] = {"status": "not compiled", "how": reasons.get(m.id)}
        elif m.id not in reached:
            results[m.id] = {"status": "not covered"}
    runnable = [m for m in mutants if m.id not in results]
    if opts.ids:
        wanted = {int(x) for x in opts.ids.split(",")}
        chosen = [m for m in runnable if m.id in wanted]
    elif opts.keys:
        # Re-checking known survivors (e.g. a why-alive reason after a new test or check): unlike
        # --ids, a trace first, so each runs only the tests that reach it.
        wanted = {k.strip() for k in opts.keys.split(",") if k.strip()}
        found = {m.key_hash for m in mutants}
        for k in sorted(wanted - found):
            log(f"--keys: {k} is not a mutant of these files")
        for m in mutants:
            if m.key_hash in wanted and m.id in results:
                log(f"--keys: {m.key_hash} is {results[m.id]['status']}")
        chosen = [m for m in runnable if m.key_hash in wanted]
        mutants = [m for m in mutants if m.key_hash in wanted]
        results = {i: r for i, r in results.items() if by_id[i].key_hash in wanted}
    elif opts.sample:
        live_by_file = {}
        for m in mutants:
            if m.id not in dropped:
                live_by_file.setdefault(m.file, []).append(m)
        picked = {m.id for m in sample(live_by_file, opts.sample)}
        chosen = [m for m in runnable if m.id in picked]
        for m in mutants:
            if m.id not in picked:
                results.pop(m.id, None)  # outside the sample: not part of this run's figures
        mutants = [m for m in mutants if m.id in picked]
    else:
        chosen = runnable
    log(f"running {len(chosen)} covered mutant(s); "
        f"{sum(1 for v in results.values() if v['status'] == 'not covered')} not covered, "
        f"{sum(1 for v in results.values() if v['status'] == 'not compiled')} not compiled")

    run_start = time.time()
    todo = []
    for m in chosen:
        if m.key_hash in previous:
            kept = previous[m.key_hash]
            results[m.id] = {k2: kept[k2] for k2 in ("status", "how", "by", "seconds", "tests_reaching") if k2 in kept}
            results[m.id]["kept_from"] = os.path.basename(opts.update)
        else:
            todo.append(m)

    def one(m):
        names = reached[m.id]
        if "*" in names:
            names = set(tests)
        indices = [tests[n]["index"] for n in names]
        slowest = max((durations.get(n, 1.0) for n in names), default=1.0)
        timeout = int(max(20, 10 * slowest)) if durations else 300  # --ids: no baseline times
        # One mutant per core, each ctest serial: serial ctest runs the tests in their order (the
        # quick unit tests first, the last failures before them), so a killed mutant stops early.
        # Tests with a RESOURCE_LOCK (e.g. the install check's install tree) or RUN_SERIAL never run
        # in two mutants' ctest processes at once: ctest honours those only within one process.
        held = sorted({lock for n in names for lock in tests[n]["locks"]})
        for lock in held:
            resource_locks.setdefault(lock, threading.Lock()).acquire()
        try:
            res = run_mutant(build_dir, opts.labels, m.id, indices, timeout, 1, names_by_number)
        finally:
            for lock in held:
                resource_locks[lock].release()
        res["tests_reaching"] = len(names)
        return m, res

    names_by_number = names
    resource_locks = {lock: threading.Lock() for t in tests.values() for lock in t["locks"]}
    done = killed = 0
    with concurrent.futures.ThreadPoolExecutor(max(1, opts.jobs)) as pool:
        for m, res in pool.map(one, todo):
            results[m.id] = res
            done += 1
            killed += res["status"] == "killed"
            if done % 10 == 0 or done == len(todo):
                eta = (time.time() - run_start) / done * (len(todo) - done)
                log(f"[{done}/{len(todo)}] killed {killed}, survived {done - killed}; ~{eta / 60:.0f} min left")

    with open(os.path.join(opts.work, f"verdicts-{opts.scope}.json"), "w") as f:
        json.dump({by_id[i].key_hash: r for i, r in results.items()}, f)  # kept if reporting fails
    survivors = [i for i, r in results.items() if r["status"] == "survived"]
    if survivors:
        log(f"checking {len(survivors)} survivor(s) for equivalence (object hashes)")
        # Object hashes depend only on the sources: verdicts of the same sources are reused.
        cache_path = os.path.join(opts.work, f"equivalence-{opts.scope}.json")
        cache = json.load(open(cache_path)) if os.path.exists(cache_path) else {}
        known = cache.get(source_hash, {})
        todo_ids = [i for i in survivors if by_id[i].key_hash not in known]
        verdicts = check_equivalence(todo_ids, by_id, compile_db, os.path.join(opts.work, "equiv"), opts.jobs) \
            if todo_ids else {}
        known.update({by_id[i].key_hash: same for i, same in verdicts.items()})
        with open(cache_path, "w") as f:
            json.dump({source_hash: known}, f)
        verdicts = {i: known[by_id[i].key_hash] for i in survivors}
        for i, same in verdicts.items():
            if same:
                results[i]["status"] = "equivalent"
    for i, res in results.items():
        if res["status"] in ("survived", "equivalent"):
            res["reached_by"] = sorted(reached.get(i, []))[:20]

    data = report.assemble(opts, mutants, results, time.time() - started, " ".join(sys.argv[1:]))
    data["source_hash"] = source_hash
    data["universe"] = {"mutants": len(by_id), "not_compiled": len(dropped), "files": len(files)}
    partial = bool(opts.files or opts.ids or opts.keys)  # not the scope's report: kept out of docs/ unless asked
    json_path = opts.json or os.path.join(opts.work if partial else os.path.join(REPO, "docs"),
                                          f"mutation-{opts.scope}.json")
    with open(json_path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    md_path = opts.markdown or (os.path.join(REPO, "docs", "MUTATION.md") if opts.scope == "engine" and not opts.files
                                and not opts.ids and not opts.keys else None)
    if md_path:
        data["why_alive"] = why_alive()
        with open(md_path, "w") as f:
            f.write(report.markdown(data))
    s = data["summary"]
    log(f"kill rate {s['kill_rate']:.1%} ({s['killed']} killed / {s['killed'] + s['survived']} non-equivalent covered); "
        f"{s['survived']} survived, {s['equivalent']} equivalent, {s['not_covered']} not covered, "
        f"{s['not_compiled']} not compiled; {data['seconds'] / 60:.1f} min; {os.path.relpath(json_path, REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
