# Dictionary tokens for a schema-encoded target: the byte strings (3..6 bytes) that occur in the most
# committed corpus files, i.e. the encodings of the structures the seeds share (a tracked float
# spec, an op step, a command), which libFuzzer's byte mutator can then insert whole.
import collections, os, sys
target, out = sys.argv[1], sys.argv[2]
d = os.path.join("corpus", target)
df = collections.Counter()
n = 0
for f in sorted(os.listdir(d)):
    b = open(os.path.join(d, f), "rb").read()
    n += 1
    seen = set()
    for L in range(3, 7):
        for i in range(len(b) - L + 1):
            g = b[i:i + L]
            if g.count(0) == L: continue
            seen.add(g)
    df.update(seen)
# score: files containing it x length; drop a token contained in a better-scoring one
cands = sorted(df.items(), key=lambda kv: (-kv[1] * len(kv[0]), kv[0]))
picked = []
for g, c in cands:
    if c < max(3, n // 50): break
    if any(g in p for p, _ in picked): continue
    picked.append((g, c))
    if len(picked) >= 48: break
with open(out, "w") as o:
    o.write(f"# {target}: the 3..6-byte strings shared by the most files of corpus/{target} ({n} files), i.e. encoded\n"
            f"# sub-structures of the schema (fuzz/decode/*.hpp). Generated: python3 fuzz/mutate/gen_dict.py TARGET corpus/TARGET.dict (docs/FUZZ_MUTATOR.md).\n")
    for i, (g, c) in enumerate(picked):
        o.write(f'tok{i}_in{c}="' + "".join(f"\\x{x:02x}" for x in g) + '"\n')
print(target, n, len(picked))
