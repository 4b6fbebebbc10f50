#!/usr/bin/env python3
"""Generate a large repository whose matrix mixes every glob shape of the
dialect, for benchmarks that cannot be tuned to one shape.

    bench/synth_mix.py DIR [--files 100000] [--ops 1000] [--staged 50] [--seed 1]

The tree looks like a kernel project: csrc/<area>/<module>/ (kernels, an
impl/ subdirectory), include/<area>/<module>/ headers, src/cpu/<module>/gemm/
C++ sources, python/pkg/<area>/ modules, tests/<area>/ tests, docs/ and a
third_party/ tree no glob covers (30% of the files). Every op gets 3 to 9
globs (about 6 on average, as in the issue's 1,000-op / ~5,900-glob matrix),
each of a shape drawn with these weights (percent):

  dir/       24  `csrc/attention/mod7/`            CODEOWNERS: most rules
  literal    14  `csrc/attention/mod7/k0.cu`        are directories or files
  one-seg    14  `csrc/attention/mod7/k*.cu`, `include/.../*.cuh`
  **-middle  10  `csrc/**/mod7/**`, `**/mod7_*.py`, `csrc/attention/**/impl/*.cu`
  *-dir       7  `src/cpu/*/gemm/mod7_*.cpp`
  brace-dirs 10  `{csrc/attention/mod7/**,include/attention/mod7/y*.cuh}`
  empty-alt   6  `csrc/attention/mod7/k0.cu{,h}`
  nested      5  `{csrc,include}/attention/mod7/{k,y}{0,1{,0}}.cu{,h}`
  class       6  `tests/attention/test_mod7_[0-9]*.py`, `csrc/.../k[!0].cu`
  ?           4  `python/pkg/attention/mod7_?.py`

Why these: the CODEOWNERS files of vLLM (~190 rules), TensorRT-LLM and
PyTorch are ~80% literal directories and files, ~15% one-segment wildcards
(`Foreach*`, `rocm*.py`, `*Transceiver*`), ~5% `**` in the middle
(`/vllm/**/*rocm*`, `/docs/**/*.yml`) and ~1% `*` directories
(`/vllm/models/*/amd`). CODEOWNERS has no braces, classes or `?`; sota's
dialect does, and the matrices that exposed the slow path used them, so the
mix keeps the literal share near half and gives the other shapes the rest.

Only the index and HEAD are written (git fast-import, one shared blob), plus
the files the matrix anchors to (`at`), so 1,000,000 tracked files take
seconds and little disk; git reads the index either way. A staged change of
STAGED files (a third of them kernels), each with its own 1-64 KiB
content, is left in the index and the work tree.
Deterministic: the same arguments give the same repository.
"""
import argparse
import os
import random
import subprocess
import sys

AREAS = ["attention", "gemm", "moe", "quant", "norm", "rope", "sampling",
         "comm", "conv", "reduce"]


def git(repo, *args, **kw):
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="Synth", GIT_AUTHOR_EMAIL="synth@example.org",
               GIT_COMMITTER_NAME="Synth", GIT_COMMITTER_EMAIL="synth@example.org",
               GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    return subprocess.run(["git", "-C", repo, *args], check=True, env=env, **kw)


def module_files(m, n):
    """n paths for module m, spread over its directories."""
    a = AREAS[m % len(AREAS)]
    out = []
    for j in range(n):
        k = j % 8
        if k == 0:
            out.append(f"csrc/{a}/mod{m}/k{j // 8}.cu")
        elif k == 1:
            out.append(f"csrc/{a}/mod{m}/k{j // 8}.cuh")
        elif k == 2:
            out.append(f"csrc/{a}/mod{m}/impl/v{j // 8 % 10}/i{j // 80}.cu")
        elif k == 3:
            out.append(f"include/{a}/mod{m}/y{j // 8}.cuh")
        elif k == 4:
            out.append(f"src/cpu/mod{m}/gemm/mod{m}_{j // 8}.cpp")
        elif k == 5:
            out.append(f"python/pkg/{a}/mod{m}_{j // 8}.py")
        elif k == 6:
            out.append(f"tests/{a}/test_mod{m}_{j // 8}.py")
        else:
            out.append(f"docs/{a}/mod{m}/page{j // 8}.md")
    return out


def filler(n, rng):
    """Paths no glob covers: a deep third-party tree."""
    out = []
    for i in range(n):
        lib = i // 400
        out.append(f"third_party/lib{lib}/src/d{i % 7}/sub{i % 3}/f{i}.{rng.choice(['c', 'h', 'cc', 'txt'])}")
    return out


SHAPES = [("dir", 24), ("literal", 14), ("oneseg", 14), ("midstar", 10), ("stardir", 7),
          ("bracedirs", 10), ("emptyalt", 6), ("nested", 5), ("class", 6), ("qmark", 4)]


def glob_for(shape, m, rng):
    a = AREAS[m % len(AREAS)]
    d = f"csrc/{a}/mod{m}"
    if shape == "dir":
        return rng.choice([f"{d}/", f"include/{a}/mod{m}/", f"{d}/impl/", f"docs/{a}/mod{m}/"])
    if shape == "literal":
        return rng.choice([f"{d}/k0.cu", f"include/{a}/mod{m}/y0.cuh", f"python/pkg/{a}/mod{m}_0.py"])
    if shape == "oneseg":
        return rng.choice([f"{d}/k*.cu", f"include/{a}/mod{m}/*.cuh", f"python/pkg/{a}/mod{m}_*.py",
                           f"tests/{a}/test_mod{m}_*"])
    if shape == "midstar":
        return rng.choice([f"csrc/**/mod{m}/**", f"**/mod{m}_*.py", f"csrc/{a}/**/impl/*.cu",
                           f"csrc/**/mod{m}/impl/**/*.cu"])
    if shape == "stardir":
        return rng.choice([f"src/cpu/*/gemm/mod{m}_*.cpp", f"csrc/*/mod{m}/*.cuh"])
    if shape == "bracedirs":
        return rng.choice([f"{{{d}/**,include/{a}/mod{m}/y*.cuh}}",
                           f"{{src/cpu/mod{m}/,tests/{a}/test_mod{m}_*.py}}"])
    if shape == "emptyalt":
        return rng.choice([f"{d}/k0.cu{{,h}}", f"{d}/k1.cu{{,h}}"])
    if shape == "nested":
        return f"{{csrc,include}}/{a}/mod{m}/{{k,y}}{{0,1{{,0}}}}.cu{{,h}}"
    if shape == "class":
        return rng.choice([f"tests/{a}/test_mod{m}_[0-9]*.py", f"{d}/k[!0].cu",
                           f"python/pkg/{a}/mod{m}_[a-z0-9]*.py"])
    if shape == "qmark":
        return rng.choice([f"python/pkg/{a}/mod{m}_?.py", f"{d}/k?.cuh"])
    raise ValueError(shape)


def matrix(ops, rng):
    shapes = [s for s, _ in SHAPES]
    weights = [w for _, w in SHAPES]
    out = ["[project]", 'name = "synthetic-mix"', "reviewed = 2026-01-01", "",
           "[kernels]", 'include = ["csrc/**/*.cu", "csrc/**/*.cuh", "include/**/*.cuh"]',
           'exclude = ["**/test_*"]', ""]
    count = {s: 0 for s in shapes}
    for m in range(ops):
        globs = []
        for _ in range(rng.randint(3, 9)):
            s = rng.choices(shapes, weights)[0]
            count[s] += 1
            globs.append(glob_for(s, m, rng))
        a = AREAS[m % len(AREAS)]
        files = ", ".join(f"'{g}'" for g in globs)
        out += ["[[op]]", f'slug = "op-{m}"', f'title = "Synthetic operation {m}"',
                f"files = [{files}]",
                f'at = ["csrc/{a}/mod{m}/k0.cu#kernel_{m}"]',
                f'sota = "Reference kernel {m}"', f'link = "https://example.org/ref/{m}"',
                'route = "bind"', 'oracle = "f32 reference (cosine >= 0.999)"', ""]
    return "\n".join(out), count


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--ops", type=int, default=1000)
    ap.add_argument("--staged", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    repo = os.path.abspath(a.dir)
    if os.path.exists(os.path.join(repo, ".git")):
        sys.exit(f"{repo} already holds a repository; remove it first")
    os.makedirs(repo, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")

    covered = int(a.files * 0.7)
    per = max(1, covered // a.ops)
    paths = []
    for m in range(a.ops):
        paths += module_files(m, per)
    paths += filler(max(0, a.files - 1 - len(paths)), rng)
    paths = sorted(set(paths))[: a.files - 1]
    text, count = matrix(a.ops, rng)

    blob = b"// synthetic\n"
    stream = [f"blob\nmark :1\ndata {len(blob)}\n".encode() + blob + b"\n"]
    body = text.encode()
    stream.append(f"blob\nmark :2\ndata {len(body)}\n".encode() + body + b"\n")
    msg = b"synthetic tree\n"
    stream.append(b"commit refs/heads/main\n"
                  b"committer Synth <synth@example.org> 1767225600 +0000\n"
                  + f"data {len(msg)}\n".encode() + msg)
    stream.append(b"M 100644 :2 sota.toml\n")
    stream.append(b"".join(f"M 100644 :1 {p}\n".encode() for p in paths))
    git(repo, "fast-import", "--quiet", input=b"".join(stream))
    git(repo, "read-tree", "main")
    with open(os.path.join(repo, "sota.toml"), "w") as f:
        f.write(text)
    # The files the matrix anchors to exist on disk, each with its symbol.
    for m in range(a.ops):
        p = f"csrc/{AREAS[m % len(AREAS)]}/mod{m}/k0.cu"
        full = os.path.join(repo, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(f"__global__ void kernel_{m}() {{}}\n")

    # A staged change: new blob contents for STAGED paths, a third kernels.
    kernels = [p for p in paths if p.endswith(".cu")]
    others = [p for p in paths if p.endswith((".py", ".md", ".txt"))]
    srng = random.Random(7)
    staged = srng.sample(kernels, min(len(kernels), a.staged // 3))
    staged += srng.sample(others, min(len(others), a.staged - len(staged)))
    # Each staged file gets its own content (1-64 KiB of source-like text,
    # no `Prior-art:`), written to the work tree as `git add` leaves it, so
    # a reader of the staged blobs pays for every one.
    names = []
    for i, p in enumerate(staged):
        lines = [f"// {p}: staged edit {i}\n"]
        size = srng.randint(1 << 10, 1 << 16)
        while sum(map(len, lines)) < size:
            lines.append(f"    acc{srng.randrange(64)} += a[{srng.randrange(1 << 20)}] * b[{i}];\n")
        full = os.path.join(repo, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write("".join(lines))
        names.append(p)
    ids = git(repo, "hash-object", "-w", "--stdin-paths", input="\n".join(names).encode(),
              capture_output=True).stdout.decode().split()
    info = "".join(f"100644 {new}\t{p}\n" for new, p in zip(ids, staged))
    git(repo, "update-index", "--index-info", input=info.encode())
    total = sum(count.values())
    mix = ", ".join(f"{s} {100 * n / total:.0f}%" for s, n in count.items())
    print(f"{repo}: {len(paths) + 1} files, {a.ops} ops, {total} globs ({mix}), {len(staged)} staged")


if __name__ == "__main__":
    main()
