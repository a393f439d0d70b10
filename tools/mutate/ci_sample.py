#!/usr/bin/env python3
"""The CI mutation sample (ctest label `mutation`; README "Mutation testing").

tests/mutation/ci_sample.txt names about 40 engine mutants by their stable keys (file, function,
operator, text; see sites.stable_key). This file does three jobs:

  render  (at build time)  parse the sampled files, render only the sampled mutants as a schema
                           into the build dir, and write manifest.json (id -> mutant);
  run     (the ctest test) trace which tests of unit_tests / property_tests reach each mutant (each
                           test in its own process), then run each mutant on those tests with
                           --gtest_fail_fast; every mutant must be killed (a failure, a crash or
                           a timeout), and every key must still name a mutant;
  pick    (by hand)        choose a new sample from a full run's JSON: mutants of .cpp files that a
                           unit or property test killed there, spread over dispatch, autodiff,
                           the backends and core, by stable hash.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mutate import trace_ids  # noqa: E402  (the one parser of trace files)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
AREAS = ("dispatch", "autodiff", "backends", "core")


def read_sample(path):
    rows = []
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            key, file, *rest = line.split(None, 2)
            rows.append({"key": key, "file": file, "what": rest[0] if rest else ""})
    return rows


# ---- render --------------------------------------------------------------------------------------
def render(sample_path, out_dir, compile_db):
    import schemata
    from mutate import find_mutants, libclang_args, write_if_changed

    rows = read_sample(sample_path)
    files = sorted({r["file"] for r in rows})
    args = libclang_args(compile_db)["engine"]
    mutants = find_mutants(files, args)
    by_key = {m.key_hash: m for m in mutants}
    manifest = {"mutants": [], "missing": []}
    chosen = {f: [] for f in files}
    for i, r in enumerate(rows, start=1):
        m = by_key.get(r["key"])
        if m is None:
            manifest["missing"].append(r)
            continue
        m.id = i
        chosen[m.file].append(m)
        manifest["mutants"].append({"id": i, "key": r["key"], "what": m.describe()})
    for f in files:
        src = open(os.path.join(REPO, f), "rb").read()
        dest = os.path.join(out_dir, f)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        write_if_changed(dest, schemata.render(src, chosen[f]).text())
    with open(os.path.join(out_dir, "manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=1)
    print(f"ci_sample: rendered {len(manifest['mutants'])} mutant(s) in {len(files)} file(s); "
          f"{len(manifest['missing'])} key(s) name no mutant")


# ---- run -----------------------------------------------------------------------------------------
def list_gtests(exe):
    out = subprocess.run([exe, "--gtest_list_tests"], text=True, capture_output=True, check=True).stdout
    tests, suite = [], None
    for line in out.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
        else:
            tests.append(suite + line.split("#")[0].strip())
    return tests


def trace_tests(exes, jobs, seconds):
    """{(exe, test): set(mutant ids reached)}, one process per test; fills seconds[(exe, test)]."""
    reached = {}
    with tempfile.TemporaryDirectory() as root:
        jobs_list = []
        for exe in exes:
            for t in list_gtests(exe):
                jobs_list.append((exe, t))

        def one(k):
            exe, t = jobs_list[k]
            d = os.path.join(root, str(k))
            os.makedirs(d)
            env = dict(os.environ, CROSSGRAD_MUTATION_TRACE=d)
            env.pop("CROSSGRAD_MUTANT", None)
            began = time.time()
            r = subprocess.run([exe, f"--gtest_filter={t}"], env=env, text=True, capture_output=True)
            seconds[(exe, t)] = time.time() - began
            if r.returncode != 0:
                raise SystemExit(f"ci_sample: {os.path.basename(exe)} {t} fails with no mutant live:\n{r.stdout[-2000:]}")
            ids = set()
            for p in glob.glob(os.path.join(d, "*.trace")):
                ids |= trace_ids(open(p).read().split("\n"))  # not splitlines(): see read_traces
            return k, ids

        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            for k, ids in pool.map(one, range(len(jobs_list))):
                reached[jobs_list[k]] = ids
    return reached


def run_mutant(m_id, reached, seconds):
    by_exe = {}
    for (exe, t), ids in reached.items():
        if m_id in ids:
            by_exe.setdefault(exe, []).append(t)
    if not by_exe:
        return "not covered", None
    env = dict(os.environ, CROSSGRAD_MUTANT=str(m_id))
    env.pop("CROSSGRAD_MUTATION_TRACE", None)
    for exe, tests in sorted(by_exe.items()):
        # A mutant that loops forever is killed by timeout: ten times what these tests take
        # unmutated (one process each, so this also covers their start-up), and at least 10 s.
        timeout = max(10.0, 10 * sum(seconds[(exe, t)] for t in tests))
        try:
            r = subprocess.run([exe, "--gtest_fail_fast", "--gtest_brief=1", "--gtest_filter=" + ":".join(tests)],
                               env=env, text=True, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "killed", f"timeout in {os.path.basename(exe)}"
        if r.returncode != 0:
            failed = [l.split("]", 1)[1].strip() for l in r.stdout.splitlines() if l.startswith("[  FAILED  ]")]
            how = "crash" if r.returncode < 0 else "test failed"
            return "killed", f"{how}: {failed[0] if failed else os.path.basename(exe)}"
    return "survived", f"{sum(len(v) for v in by_exe.values())} test(s) reach it"


def run(manifest_path, exes, jobs):
    start = time.time()
    manifest = json.load(open(manifest_path))
    seconds = {}
    reached = trace_tests(exes, jobs, seconds)
    print(f"ci_sample: traced {len(reached)} tests in {time.time() - start:.0f}s", flush=True)
    failures = 0
    for m in manifest["mutants"]:
        status, detail = run_mutant(m["id"], reached, seconds)
        ok = status == "killed"
        failures += not ok
        print(f"{'killed  ' if ok else 'ALIVE   '} {m['what']} ({status}; {detail})", flush=True)
    for r in manifest["missing"]:
        failures += 1
        print(f"MISSING  {r['key']} {r['file']} {r['what']}: the code changed; pick a new sample "
              f"(tools/mutate/ci_sample.py pick, README \"Mutation testing\")")
    n = len(manifest["mutants"])
    print(f"ci_sample: {n} mutants, {n + len(manifest['missing']) - failures} killed, "
          f"{failures} not killed or missing; {time.time() - start:.0f}s")
    return 1 if failures else 0


# ---- pick ----------------------------------------------------------------------------------------
def pick(results_path, count, out_path):
    data = json.load(open(results_path))
    # Mutants the full run saw killed by a unit or property test (this test runs just those two
    # executables): the sample guards that power against a weakened test or oracle.
    pool = [r for r in data["mutants"] if r["file"].endswith(".cpp") and r["status"] == "killed"
            and r.get("by") and not r["by"].startswith(("corpus.", "CorpusDecoding", "RegistryIndices", "docs.", "install.",
                                               "fuzz.", "ci.", "property.matrix"))
            and r.get("how") != "timeout"]
    by_area = {}
    for r in pool:
        top = r["file"].split("/")[2]
        if top in AREAS:
            by_area.setdefault(top, []).append(r)
    per = max(1, count // len(by_area))
    chosen = []
    for area in AREAS:
        chosen += sorted(by_area.get(area, []), key=lambda r: r["key"])[:per]
    with open(out_path, "w") as f:
        f.write("# The CI mutation sample (ctest label mutation): every mutant here must be killed by\n"
                "# the unit and property tests. Picked by tools/mutate/ci_sample.py pick from\n"
                f"# {os.path.relpath(results_path, REPO)} ({data['command']}); key, file, what.\n")
        for r in chosen:
            what = f"{r['file']}:{r['line']} {r['operator']}: `{r['original']}` -> `{r['mutated']}`"
            what = " ".join(what.split())
            f.write(f"{r['key']} {r['file']} {what[:160]}\n")
    print(f"ci_sample: wrote {len(chosen)} mutants to {out_path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render")
    r.add_argument("--sample", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--compile-db")
    u = sub.add_parser("run")
    u.add_argument("--manifest", required=True)
    u.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    u.add_argument("exes", nargs="+")
    p = sub.add_parser("pick")
    p.add_argument("--results", default=os.path.join(REPO, "docs", "mutation-engine.json"))
    p.add_argument("--count", type=int, default=40)
    p.add_argument("--out", default=os.path.join(REPO, "tests", "mutation", "ci_sample.txt"))
    o = ap.parse_args()
    if o.cmd == "render":
        render(o.sample, o.out, o.compile_db)
        return 0
    if o.cmd == "run":
        return run(o.manifest, o.exes, o.jobs)
    pick(o.results, o.count, o.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
