#!/usr/bin/env python3
"""The CI mutation sample (ctest label `mutation`; README "Mutation testing").

tests/mutation/ci_sample.txt names about 40 engine mutants by their stable keys (file, function,
operator, text; see sites.stable_key). This file does three jobs:

  render  (at build time)  parse the sampled files, render only the sampled mutants as a schema
                           into the build dir, and write manifest.json (id -> mutant);
  run     (the ctest test) every mutant must be killed (a failure, a crash or a timeout), and
                           every key must still name a mutant. Each mutant is first run on the
                           test that killed it last time (tests/mutation/ci_sample_killers.txt),
                           once that test is seen passing with no mutant live; a mutant that
                           test no longer kills (renamed, weakened, or the code moved) goes to
                           the full procedure: trace which tests of unit_tests / property_tests
                           reach it (each test in its own process), then run it on those tests
                           with --gtest_fail_fast. --write-killers FILE runs the full procedure
                           for every mutant and records which test killed each;
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
            env = _env(trace=d)
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


def _env(mutant=None, trace=None):
    """This environment with the schema's switches set as asked and the others removed: the mutant
    to make live (CROSSGRAD_MUTANT) and the folder a tracing run writes to (CROSSGRAD_MUTATION_TRACE)."""
    env = dict(os.environ)
    env.pop("CROSSGRAD_MUTANT", None)
    env.pop("CROSSGRAD_MUTATION_TRACE", None)
    if mutant is not None:
        env["CROSSGRAD_MUTANT"] = str(mutant)
    if trace is not None:
        env["CROSSGRAD_MUTATION_TRACE"] = trace
    return env


def _first_failure(stdout):
    """The gtest name of the first failing test in a run's output: its [  FAILED  ] line, or for a
    crash (no such line) the last test that started."""
    for line in stdout.splitlines():
        if line.startswith("[  FAILED  ]") and "," not in line and "listed below" not in line:
            return line.split("]", 1)[1].strip().split(" (")[0]
    started = [l.split("]", 1)[1].strip() for l in stdout.splitlines() if l.startswith("[ RUN      ]")]
    return started[-1] if started else None


def run_mutant(m_id, reached, seconds):
    """(status, detail, killer): killer is (exe basename, gtest name) when one test is known to kill."""
    by_exe = {}
    for (exe, t), ids in reached.items():
        if m_id in ids:
            by_exe.setdefault(exe, []).append(t)
    if not by_exe:
        return "not covered", None, None
    env = _env(mutant=m_id)
    for exe, tests in sorted(by_exe.items()):
        # A mutant that loops forever is killed by timeout: ten times what these tests take
        # unmutated (one process each, so this also covers their start-up), and at least 10 s.
        timeout = max(10.0, 10 * sum(seconds[(exe, t)] for t in tests))
        try:
            r = subprocess.run([exe, "--gtest_fail_fast", "--gtest_filter=" + ":".join(tests)],
                               env=env, text=True, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "killed", f"timeout in {os.path.basename(exe)}", None
        if r.returncode != 0:
            killer = _first_failure(r.stdout)
            how = "crash" if r.returncode < 0 else "test failed"
            return "killed", f"{how}: {killer or os.path.basename(exe)}", (os.path.basename(exe), killer) if killer else None
    return "survived", f"{sum(len(v) for v in by_exe.values())} test(s) reach it", None


def _killer_alone(known, m_id, killer, reached):
    """A test that kills mutant m_id when run by itself, which is how mutation.ci_sample runs a
    recorded killer: `killer` when it does, else the first of the mutant's other reaching tests in
    that executable that does (a crash after an out-of-bounds write can need the heap that earlier
    tests left, so the test running at the crash may pass alone), else None (the mutant is then
    left to the traced run every time)."""
    exe_name, test = killer
    if known.kills_alone(exe_name, test, m_id):
        return killer
    for (exe, t), ids in sorted(reached.items()):
        if m_id in ids and os.path.basename(exe) == exe_name and t != test and known.kills_alone(exe_name, t, m_id):
            return (exe_name, t)
    return None


def read_killers(path):
    """{mutant key: (exe basename, gtest name)} from a killers file; {} when there is none."""
    killers = {}
    if path and os.path.exists(path):
        for line in open(path):
            if line.strip() and not line.startswith("#"):
                key, exe, test = line.split(None, 2)
                killers[key] = (exe, test.strip())
    return killers


class KnownKillers:
    """Runs a mutant on the one test recorded as its killer. That test must pass with no mutant
    live (checked once per test, which also times it), or its failure would prove nothing."""

    def __init__(self, exes, killers):
        self.by_name = {os.path.basename(e): e for e in exes}
        self.killers = killers
        self.unmutated = {}  # (exe, test) -> seconds, or None when it fails or does not exist

    def _baseline(self, exe, test):
        if (exe, test) not in self.unmutated:
            env = _env()
            began = time.time()
            r = subprocess.run([exe, f"--gtest_filter={test}"], env=env, text=True, capture_output=True)
            ok = r.returncode == 0 and "[  PASSED  ] 1 test" in r.stdout
            self.unmutated[(exe, test)] = time.time() - began if ok else None
        return self.unmutated[(exe, test)]

    def kills(self, key, m_id):
        """(status, detail) when the recorded test kills the mutant, else None."""
        hint = self.killers.get(key)
        if hint is None:
            return None
        return self.kills_alone(hint[0], hint[1], m_id)

    def kills_alone(self, exe_name, test, m_id):
        """(status, detail) when `test`, run by itself, kills mutant m_id, else None."""
        if exe_name not in self.by_name:
            return None
        exe = self.by_name[exe_name]
        seconds = self._baseline(exe, test)
        if seconds is None:
            return None
        env = _env(mutant=m_id)
        try:
            r = subprocess.run([exe, f"--gtest_filter={test}"], env=env, text=True, capture_output=True,
                               timeout=max(10.0, 10 * seconds))
        except subprocess.TimeoutExpired:
            return "killed", f"timeout: {test} (recorded killer)"
        if r.returncode == 0:
            return None
        return "killed", f"{'crash' if r.returncode < 0 else 'test failed'}: {test} (recorded killer)"


def run(manifest_path, exes, jobs, killers_path, write_killers):
    start = time.time()
    manifest = json.load(open(manifest_path))
    known = KnownKillers(exes, {} if write_killers else read_killers(killers_path))
    verdicts, pending = {}, []
    for m in manifest["mutants"]:
        v = known.kills(m["key"], m["id"])
        if v:
            verdicts[m["id"]] = v
        else:
            pending.append(m)
    print(f"ci_sample: {len(verdicts)} of {len(manifest['mutants'])} mutants killed by their recorded "
          f"test in {time.time() - start:.0f}s", flush=True)
    found = {}
    if pending:
        seconds = {}
        reached = trace_tests(exes, jobs, seconds)
        print(f"ci_sample: traced {len(reached)} tests in {time.time() - start:.0f}s for "
              f"{len(pending)} mutant(s) without a recorded killer", flush=True)
        for m in pending:
            status, detail, killer = run_mutant(m["id"], reached, seconds)
            verdicts[m["id"]] = (status, detail)
            if killer and write_killers:
                killer = _killer_alone(known, m["id"], killer, reached)
            if killer:
                found[m["key"]] = killer
    failures = 0
    for m in manifest["mutants"]:
        status, detail = verdicts[m["id"]]
        ok = status == "killed"
        failures += not ok
        print(f"{'killed  ' if ok else 'ALIVE   '} {m['what']} ({status}; {detail})", flush=True)
    for r in manifest["missing"]:
        failures += 1
        print(f"MISSING  {r['key']} {r['file']} {r['what']}: the code changed; pick a new sample "
              f"(tools/mutate/ci_sample.py pick, README \"Mutation testing\")")
    if found and not write_killers:
        print(f"ci_sample: {len(found)} mutant(s) killed by a test that is not their recorded killer; to record "
              f"them: tools/mutate/ci_sample.py run --write-killers tests/mutation/ci_sample_killers.txt ...")
    if write_killers:
        with open(write_killers, "w") as f:
            f.write("# The test that killed each CI-sample mutant in a full traced run (tools/mutate/ci_sample.py\n"
                    "# run --write-killers); mutation.ci_sample tries it first. key, executable, gtest name.\n")
            for m in manifest["mutants"]:
                if m["key"] in found:
                    f.write(f"{m['key']} {found[m['key']][0]} {found[m['key']][1]}\n")
        print(f"ci_sample: wrote {len(found)} killers to {write_killers}")
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
    u.add_argument("--killers", default=os.path.join(REPO, "tests", "mutation", "ci_sample_killers.txt"))
    u.add_argument("--write-killers", metavar="FILE")
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
        return run(o.manifest, o.exes, o.jobs, o.killers, o.write_killers)
    pick(o.results, o.count, o.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
