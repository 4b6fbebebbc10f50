#!/usr/bin/env python3
"""Every surface on `sota init`'s draft of each corpus tree (issue 30, items 4-6).

    bench/draft_surfaces.py CORPUS_DIR CHECKOUTS_DIR [--sota PATH] [--only NAME[,NAME]]
                            [--set SET] [--jobs N]

For each repository of CORPUS_DIR/repos.json whose checkout is under
CHECKOUTS_DIR, the draft (`sota init --dry-run --json`, its `toml` with
`[project] root = ".."`) is written inside the checkout's `.git/` and removed
afterwards. Then, with that draft as the matrix:

  surfaces  `milestones`, `audit --max-count 300`, `report --html`, `coverage`
            exit as documented (coverage 0 or 1), and four seeded-random
            drafted kernel files each look up as "covered by 1 op", exit 0;
  moves     three seeded-random kernel files are moved to another of the
            draft's ops with `suggest FILE --op B --write`; after each, the
            op of every population file (read from `gate --json` over the
            whole population) is what it was, except FILE, now in B only,
            and the population itself is unchanged;
  mcp       for three drafted kernel files and three new paths beside them
            (`new_<name>`, not in the tree), the MCP tools `ops_for_paths`
            and `suggest` name the same op(s) as `sota suggest --json` and,
            for the tracked files, as `gate --json` (a new path may get no op:
            nothing in the catalog fits its name);
  refills   two of the draft's ops (the largest, and one more at random) are
            deleted in turn, the row whole, and `suggest --uncovered --write`
            places what they held again: afterwards every tracked file
            outside the deleted op has the op(s) it had (read from
            `gate --json` over every tracked file: item 4's "a glob matches
            only its targets and files the same op already covers", on real
            directory shapes), each target (the op's files, and the kernel
            files the draft left in no op) is in one op at most, and the
            population is unchanged. How many files went back, and into
            their old op, is counted, not judged;
  proofs    every op of the draft with a `check` list (the catalog's) judges a
            candidate equal to the reference as passing (exit 0) and one of the
            opposite sign as failing (exit 1), in f32 and f16 (.npy) and bf16
            (.safetensors), 8x128 values; an op with no `check` list (a custom
            family) exits 2 naming the missing list.

A line per failing check, then the totals. Nothing of the checkouts changes
(the draft lives under .git/ and is removed).
"""
import concurrent.futures
import json
import os
import random
import re
import struct
import subprocess
import sys

from init_corpus import SETS, chosen_checkouts, corpus_parser

TODAY = "2026-12-07"


class Tree:
    """One checkout with init's draft written under its .git/."""

    def __init__(self, sota, checkout, name):
        self.sota, self.cwd, self.name = sota, checkout, name
        self.matrix = os.path.join(".git", "sota-draft-surfaces.toml")
        self.failures, self.counts = [], {"surfaces": 0, "moves": 0, "mcp": 0, "refills": 0,
                                          "refilled": 0, "refilled_home": 0, "refill_left": 0,
                                          "proofs": 0}

    def run(self, *args, stdin=None):
        return subprocess.run([self.sota, *args], cwd=self.cwd, input=stdin, capture_output=True, text=True,
                              timeout=300)

    def fail(self, check, text):
        self.failures.append(f"{self.name}: {check}: {text}")

    def write_draft(self):
        r = self.run("init", "--dry-run", "--json", "--today", TODAY)
        draft = json.loads(r.stdout)
        with open(os.path.join(self.cwd, self.matrix), "w") as fh:
            fh.write(draft["toml"].replace("[project]\n", '[project]\nroot = ".."\n', 1))
        return draft

    def op_map(self):
        """(population, {path: [ops]}) as coverage and the gate see the draft now."""
        cov = json.loads(self.run("coverage", "--json", "--today", TODAY, "--matrix", self.matrix).stdout)
        population = cov["population"]["kernel_files"]
        ops = {}
        if population:
            gate = json.loads(self.run("gate", "--json", "--matrix", self.matrix, *population).stdout)
            for advisory in gate["advisories"]:
                for path in advisory["paths"]:
                    ops.setdefault(path, []).append(advisory["slug"])
        return population, ops

    def tracked_ops(self, tracked):
        """{path: [ops]} the gate names for every tracked file (in chunks: argv stays short)."""
        ops = {}
        for i in range(0, len(tracked), 2000):
            gate = json.loads(self.run("gate", "--json", "--matrix", self.matrix, *tracked[i:i + 2000]).stdout)
            for advisory in gate["advisories"]:
                for path in advisory["paths"]:
                    ops.setdefault(path, []).append(advisory["slug"])
        return {p: sorted(o) for p, o in ops.items()}


def check_surfaces(tree, kernels, rng):
    expected = {"milestones": (0,), "audit": (0,), "report": (0,), "coverage": (0, 1)}
    runs = {
        "milestones": ("milestones", "--matrix", tree.matrix),
        "audit": ("audit", "--matrix", tree.matrix, "--max-count", "300"),
        "report": ("report", "--html", os.path.join(".git", "sota-draft-surfaces.html"), "--matrix", tree.matrix,
                   "--today", TODAY),
        "coverage": ("coverage", "--matrix", tree.matrix, "--today", TODAY),
    }
    for name, args in runs.items():
        r = tree.run(*args)
        tree.counts["surfaces"] += 1
        if r.returncode not in expected[name]:
            tree.fail(name, f"exit {r.returncode}: {r.stderr.strip()[:200]}")
    html = os.path.join(tree.cwd, ".git", "sota-draft-surfaces.html")
    if os.path.exists(html):
        os.unlink(html)
    for path in rng.sample(kernels, min(4, len(kernels))):
        r = tree.run("--matrix", tree.matrix, path)
        tree.counts["surfaces"] += 1
        if r.returncode != 0 or not re.search(r"is covered by 1 op\b", r.stdout):
            tree.fail("lookup", f"{path}: exit {r.returncode}: {(r.stdout or r.stderr).strip()[:200]}")


def check_moves(tree, slugs, rng):
    population, ops = tree.op_map()
    for _ in range(3):
        placed = sorted(p for p in ops if len(ops[p]) == 1)
        if not placed or len(slugs) < 2:
            return
        path = rng.choice(placed)
        target = rng.choice([s for s in slugs if s not in ops[path]])
        r = tree.run("suggest", path, "--op", target, "--write", "--matrix", tree.matrix)
        tree.counts["moves"] += 1
        if r.returncode != 0:
            tree.fail("move", f"{path} -> {target}: exit {r.returncode}: {r.stderr.strip()[:200]}")
            return
        after_population, after = tree.op_map()
        wanted = dict(ops, **{path: [target]})
        changed = sorted(p for p in set(wanted) | set(after) if sorted(wanted.get(p, [])) != sorted(after.get(p, [])))
        if after_population != population:
            tree.fail("move", f"{path} -> {target}: the population changed ({len(population)} -> {len(after_population)})")
        if changed:
            tree.fail("move", f"{path} -> {target}: {len(changed)} files changed op, e.g. {changed[:3]}")
        ops = after


def without_op(text, slug):
    """TEXT with the `[[op]]` row of SLUG deleted whole (up to the next table header)."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith("[")] + [len(lines)]
    for begin, end in zip(starts, starts[1:]):
        if lines[begin].startswith("[[op]]") and f'slug = "{slug}"\n' in lines[begin:end]:
            return "".join(lines[:begin] + lines[end:])
    raise KeyError(f"no [[op]] row for {slug}")


def check_refills(tree, draft, rng):
    path = os.path.join(tree.cwd, tree.matrix)
    with open(path) as fh:
        original = fh.read()
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=tree.cwd, capture_output=True, check=True)
    tracked = sorted(p for p in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if p)
    population, _ = tree.op_map()
    before = tree.tracked_ops(tracked)
    sized = sorted((o for o in draft["ops"] if o["file_count"] >= 2), key=lambda o: (-o["file_count"], o["slug"]))
    if not sized:
        return
    chosen = [sized[0]] + rng.sample(sized[1:], min(1, len(sized) - 1))
    for op in chosen:
        slug = op["slug"]
        with open(path, "w") as fh:
            fh.write(without_op(original, slug))
        held = sorted(p for p, o in before.items() if slug in o)
        r = tree.run("suggest", "--uncovered", "--write", "--matrix", tree.matrix)
        tree.counts["refills"] += 1
        if r.returncode not in (0, 1):
            tree.fail("refill", f"{slug}: exit {r.returncode}: {r.stderr.strip()[:200]}")
            continue
        after = tree.tracked_ops(tracked)
        after_population, _ = tree.op_map()
        # `--uncovered` also places the kernel files init left for the team:
        # those are targets too, and may gain one op.
        targets = set(held) | {p for p in population if not before.get(p)}
        moved = sorted(p for p in set(before) | set(after)
                       if before.get(p, []) != after.get(p, []) and (p not in targets or len(after.get(p, [])) > 1))
        if moved:
            tree.fail("refill", f"{slug}: {len(moved)} files not its targets changed op (or are in two), e.g. "
                      f"{[(p, before.get(p, []), after.get(p, [])) for p in moved[:2]]}")
        if after_population != population:
            tree.fail("refill", f"{slug}: the population changed ({len(population)} -> {len(after_population)})")
        tree.counts["refilled"] += sum(1 for p in held if after.get(p))
        tree.counts["refilled_home"] += sum(1 for p in held if after.get(p) == [slug])
        tree.counts["refill_left"] += sum(1 for p in held if not after.get(p))
    with open(path, "w") as fh:
        fh.write(original)


ROWS, COLS = 8, 128


def tensor_values(sign):
    """ROWS x COLS seeded values in [-1, 1), times SIGN."""
    rng = random.Random(7)
    return [sign * rng.uniform(-1.0, 1.0) for _ in range(ROWS * COLS)]


def npy_bytes(values, code, descr):
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({ROWS}, {COLS}), }}"
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack(
        f"<{len(values)}{code}", *values)


def bf16_safetensors_bytes(values):
    data = b"".join(struct.pack("<I", struct.unpack("<I", struct.pack("<f", v))[0])[2:] for v in values)
    header = json.dumps({"t": {"dtype": "BF16", "shape": [ROWS, COLS], "data_offsets": [0, len(data)]}})
    header += " " * (-len(header) % 8)
    return struct.pack("<Q", len(header)) + header.encode() + data


def write_tensors(cwd):
    """(reference, equal, opposite) file pairs per dtype, under .git/."""
    files = {}
    for dtype, ext, make in (("f32", "npy", lambda v: npy_bytes(v, "f", "<f4")),
                             ("f16", "npy", lambda v: npy_bytes(v, "e", "<f2")),
                             ("bf16", "safetensors", bf16_safetensors_bytes)):
        names = []
        for role, sign in (("reference", 1.0), ("equal", 1.0), ("opposite", -1.0)):
            name = os.path.join(".git", f"sota-draft-{role}-{dtype}.{ext}")
            with open(os.path.join(cwd, name), "wb") as fh:
                fh.write(make(tensor_values(sign)))
            names.append(name)
        files[dtype] = names
    return files


def check_proofs(tree, draft):
    files = write_tensors(tree.cwd)
    try:
        for op in draft["ops"]:
            for dtype, (reference, equal, opposite) in files.items():
                for candidate, wanted in ((equal, 0), (opposite, 1)) if op["check_entries"] else ((equal, 2),):
                    r = tree.run("prove", op["slug"], "--matrix", tree.matrix, "-r", reference, "-c", candidate)
                    tree.counts["proofs"] += 1
                    says_why = wanted != 2 or "has no `check` list" in r.stderr
                    if r.returncode != wanted or not says_why:
                        tree.fail("prove", f"{op['slug']} {dtype} {os.path.basename(candidate)}: exit {r.returncode} "
                                  f"(wanted {wanted}): {(r.stdout + r.stderr).strip()[-200:]}")
                if not op["check_entries"]:
                    break
    finally:
        for names in files.values():
            for name in names:
                os.unlink(os.path.join(tree.cwd, name))


def proposed_ops(payload):
    """The op(s) a gate or suggest payload names for its paths."""
    if payload.get("schema") == "sota.suggest/v1":
        named = {(s.get("proposal") or {}).get("op") for s in payload.get("suggestions", [])} - {None}
        covered = {c for s in payload.get("suggestions", []) for c in s.get("covered_by", [])}
        return sorted(named or covered)
    return sorted({a.get("slug") for a in payload.get("advisories", [])})


def check_mcp(tree, kernels, rng):
    tracked = rng.sample(kernels, min(3, len(kernels)))
    fresh = [os.path.join(os.path.dirname(p), "new_" + os.path.basename(p)) for p in tracked]
    fresh = [p for p in fresh if not os.path.exists(os.path.join(tree.cwd, p))]
    paths = tracked + fresh
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    for i, path in enumerate(paths):
        for base, tool in ((10, "ops_for_paths"), (100, "suggest")):
            messages.append({"jsonrpc": "2.0", "id": base + i, "method": "tools/call",
                             "params": {"name": tool, "arguments": {"paths": [path]}}})
    r = tree.run("mcp", "--matrix", tree.matrix, stdin="".join(json.dumps(m) + "\n" for m in messages))
    replies = {reply.get("id"): reply for reply in map(json.loads, r.stdout.splitlines())}
    for i, path in enumerate(paths):
        tree.counts["mcp"] += 1
        answers = []
        for base, tool in ((10, "ops_for_paths"), (100, "suggest")):
            reply = replies.get(base + i, {})
            result = reply.get("result")
            if not result or result.get("isError"):
                tree.fail("mcp", f"{tool} {path}: {json.dumps(reply)[:200]}")
                break
            answers.append(proposed_ops(result.get("structuredContent", {})))
        else:
            cli = proposed_ops(json.loads(tree.run("suggest", path, "--json", "--matrix", tree.matrix).stdout))
            gate = proposed_ops(json.loads(tree.run("gate", "--json", "--matrix", tree.matrix, path).stdout))
            if not answers[0] == answers[1] == cli or (path in tracked and (answers[0] != gate or not gate)):
                tree.fail("mcp", f"{path}: ops_for_paths {answers[0]}, mcp suggest {answers[1]}, cli suggest {cli}, gate {gate}")


def measure(sota, checkout, name):
    tree = Tree(sota, checkout, name)
    try:
        draft = tree.write_draft()
    except (json.JSONDecodeError, KeyError, subprocess.TimeoutExpired) as err:
        tree.fail("init", f"no draft ({err})")
        return tree
    try:
        kernels = sorted(k["path"] for k in draft["kernels"] if k.get("op"))
        rng = random.Random(name)
        check_surfaces(tree, kernels, rng)
        if kernels:
            check_mcp(tree, kernels, rng)
        check_moves(tree, [o["slug"] for o in draft["ops"]], rng)
        check_refills(tree, draft, rng)
        check_proofs(tree, draft)
    except (json.JSONDecodeError, KeyError, subprocess.TimeoutExpired) as err:
        tree.fail("run", f"{type(err).__name__}: {err}")
    finally:
        os.unlink(os.path.join(tree.cwd, tree.matrix))
    return tree


def main():
    ap = corpus_parser(__doc__)
    ap.add_argument("--set", choices=SETS)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    sota, chosen = chosen_checkouts(a)
    todo = [(checkout, e["name"]) for checkout, e in chosen]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        trees = list(pool.map(lambda t: measure(sota, *t), todo))
    for tree in trees:
        for line in tree.failures:
            print(line)
    totals = {k: sum(t.counts[k] for t in trees) for k in trees[0].counts} if trees else {}
    failed = sum(1 for t in trees if t.failures)
    print(f"{len(trees)} drafts: {totals.get('surfaces', 0)} surface runs, {totals.get('moves', 0)} moves, "
          f"{totals.get('mcp', 0)} MCP paths checked, {totals.get('refills', 0)} ops refilled "
          f"({totals.get('refilled', 0)} files placed again, {totals.get('refilled_home', 0)} of them in "
          f"their old op alone, {totals.get('refill_left', 0)} left uncovered), {totals.get('proofs', 0)} proofs; "
          f"{failed} drafts with a failure")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
