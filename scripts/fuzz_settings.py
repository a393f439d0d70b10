"""Shared by scripts/fuzz-throughput and scripts/fuzz-overhead: a target's own fuzzing settings
(corpus/<target>.options, as ClusterFuzz reads them) and the timed corpus replay both measure with."""
import os
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPLAY_MIN_SECONDS = 5.0


def options_section(target, name):
    """corpus/<target>.options, section [name]: (key, value) pairs in file order."""
    path = os.path.join(ROOT, "corpus", f"{target}.options")
    pairs = []
    if not os.path.exists(path):
        return pairs
    section = None
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line.strip("[]").strip()
            continue
        if section == name and "=" in line:
            key, value = (part.strip() for part in line.split("=", 1))
            pairs.append((key, value))
    return pairs


def options_flags(target):
    """corpus/<target>.options ([libfuzzer] key = value) as -key=value flags."""
    return [f"-{key}={value}" for key, value in options_section(target, "libfuzzer")]


def options_env(target):
    """The sanitized process's environment: ASAN_OPTIONS / UBSAN_OPTIONS from the [asan] / [ubsan]
    sections of corpus/<target>.options (as scripts/fuzz does), before any value already in the
    environment, which thus wins."""
    env = dict(os.environ)
    for section, var in (("asan", "ASAN_OPTIONS"), ("ubsan", "UBSAN_OPTIONS")):
        pairs = options_section(target, section)
        if pairs:
            joined = ":".join(f"{k}={v}" for k, v in pairs)
            env[var] = joined + (":" + env[var] if env.get(var) else "")
    return env


def count_inputs(directory):
    n = 0
    for _base, _dirs, files in os.walk(directory):
        n += sum(1 for f in files if not f.startswith("."))
    return n


def timed_replay(binary, corpus, env=None):
    """Replays `corpus` in one process, passed k times, k raised until the run takes at least
    REPLAY_MIN_SECONDS. Returns (wall seconds, k, the CompletedProcess); a failing run is returned
    at once (returncode != 0) for the caller to report."""
    copies = 1
    while True:
        start = time.monotonic()
        done = subprocess.run([binary] + [corpus] * copies, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
        wall = time.monotonic() - start
        if done.returncode != 0 or wall >= REPLAY_MIN_SECONDS:
            return wall, copies, done
        copies = max(copies * 2, int(copies * REPLAY_MIN_SECONDS * 1.2 / max(wall, 1e-3)) + 1)
