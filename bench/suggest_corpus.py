#!/usr/bin/env python3
"""`sota suggest` measured against the hand matrices (issue 30, items 4-6).

    bench/suggest_corpus.py CORPUS_DIR CHECKOUTS_DIR [--sota PATH] [--only NAME[,NAME]]
                            [--set SET] [--undecided] [--jobs N]

Two measures per tree, summed over the fit trees and over the held-out ones:

  drafts         init's draft as the matrix, `suggest --uncovered --json`:
                 each kernel file the draft leaves in no op gets no proposal,
                 or one that is `right` (the draft's op holding most of the
                 file's hand op), `elsewhere`, or for a file the hand matrix
                 does not count (`not a kernel`). What init leaves for the
                 team, suggest should leave too, or place well.
  leave-one-out  the hand matrix as a team's, every row's `route` decided
                 (`--undecided`: none set, as in a fresh draft): up to three
                 files of its custom (`x-…`) ops and three of its catalog
                 ops are taken out of their row in turn, then `suggest FILE
                 --json` proposes the hand op (`right`), another
                 (`elsewhere`) or none: a new file beside the team's own.

The matrices are written under each checkout's .git/ and removed.
"""
import collections
import concurrent.futures
import json
import os
import random
import subprocess

from init_corpus import SETS, TODAY, chosen_checkouts, corpus_parser, coverage_files, toml_str


def run_json(sota, cwd, *args):
    return json.loads(subprocess.run([sota, *args], cwd=cwd, capture_output=True, text=True).stdout)


def hand_files(sota, checkout, ops):
    """{hand op slug: its files}, globs expanded as `sota coverage` sees them."""
    out = {}
    for op in ops:
        files = op.get("files", [])
        literal = not any(c in f for f in files for c in "*?[{")
        out[op["slug"]] = set(files) if literal else coverage_files(sota, checkout, files)
    return out


def measure_drafts(sota, checkout, by_op, tally):
    draft = run_json(sota, checkout, "init", "--dry-run", "--json", "--today", TODAY)
    placed = {k["path"]: k["op"] for k in draft["kernels"] if k.get("op")}
    hand_of = {f: slug for slug, files in sorted(by_op.items()) for f in sorted(files)}
    best = {}
    for slug, files in by_op.items():
        ops = collections.Counter(placed[f] for f in sorted(files) if f in placed)
        best[slug] = ops.most_common(1)[0][0] if ops else None
    matrix = os.path.join(".git", "sota-suggest-corpus.toml")
    with open(os.path.join(checkout, matrix), "w") as fh:
        fh.write(draft["toml"].replace("[project]\n", '[project]\nroot = ".."\n', 1))
    try:
        payload = run_json(sota, checkout, "suggest", "--uncovered", "--json", "--matrix", matrix)
    finally:
        os.unlink(os.path.join(checkout, matrix))
    for s in payload["suggestions"]:
        op = (s.get("proposal") or {}).get("op")
        tally["drafts left"] += 1
        if op is None:
            continue
        hand = hand_of.get(s["file"])
        tally["drafts " + ("not a kernel" if hand is None else "right" if best[hand] == op else "elsewhere")] += 1


def team_matrix(hand, ops, without, decided):
    """The hand matrix as TOML, `without` taken out of its row, routes set when `decided`."""
    kernels = hand.get("kernels", {})
    text = (f'[project]\nname = {toml_str(hand["project"]["name"])}\nroot = ".."\nreviewed = {TODAY}\n\n'
            f'[kernels]\ninclude = {json.dumps(kernels.get("include", []))}\n'
            f'exclude = {json.dumps(kernels.get("exclude", []))}\n')
    for op in ops:
        files = [f for f in op["files"] if f != without]
        if files:
            text += (f'\n[[op]]\nslug = {toml_str(op["slug"])}\ntitle = {toml_str(op.get("title", op["slug"]))}\n'
                     f'sota = {toml_str(op.get("sota", "hand"))}\nfiles = {json.dumps(files)}\n'
                     + ('route = "bind"\n' if decided else ''))
    return text


def measure_leave_one_out(sota, checkout, name, hand, ops, decided, tally):
    matrix = os.path.join(".git", "sota-suggest-corpus.toml")
    for kind in ("custom", "catalog"):
        files = [(f, op["slug"]) for op in ops if op["slug"].startswith("x-") == (kind == "custom")
                 and len(op.get("files", [])) >= 2 for f in op["files"] if "*" not in f]
        for path, slug in random.Random(name).sample(files, min(3, len(files))):
            with open(os.path.join(checkout, matrix), "w") as fh:
                fh.write(team_matrix(hand, ops, path, decided))
            try:
                s = run_json(sota, checkout, "suggest", path, "--json", "--matrix", matrix)["suggestions"][0]
            finally:
                os.unlink(os.path.join(checkout, matrix))
            op = (s.get("proposal") or {}).get("op")
            tally[f"{kind} files"] += 1
            tally[f"{kind} " + ("none" if op is None else "right" if op == slug else "elsewhere")] += 1


def measure(sota, corpus, checkout, entry, decided):
    import tomllib  # Python 3.11+, as init_corpus.py
    tally = collections.Counter()
    with open(os.path.join(corpus, entry["name"], "hand.toml"), "rb") as fh:
        hand = tomllib.load(fh)
    ops = hand["op"]
    measure_drafts(sota, checkout, hand_files(sota, checkout, ops), tally)
    measure_leave_one_out(sota, checkout, entry["name"], hand, ops, decided, tally)
    return entry["set"], tally


def main():
    ap = corpus_parser(__doc__)
    ap.add_argument("--set", choices=SETS)
    ap.add_argument("--undecided", action="store_true", help="leave-one-out with no route set")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    sota, todo = chosen_checkouts(a)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda t: measure(sota, a.corpus, t[0], t[1], not a.undecided), todo))
    for side, is_fit in (("fit", True), ("held out", False)):
        trees = [t for s, t in results if (s == "fit") == is_fit]
        if not trees:
            continue
        t = sum(trees, collections.Counter())
        print(f"{side}, {len(trees)} trees: drafts leave {t['drafts left']} kernel files in no op; suggest "
              f"--uncovered places {t['drafts right'] + t['drafts elsewhere'] + t['drafts not a kernel']} "
              f"({t['drafts right']} right, {t['drafts elsewhere']} elsewhere, {t['drafts not a kernel']} "
              f"not a kernel)")
        routes = "no route set" if a.undecided else "routes decided"
        for kind in ("custom", "catalog"):
            print(f"  leave-one-out ({routes}), {kind}-op files: {t[kind + ' files']}: {t[kind + ' right']} "
                  f"right, {t[kind + ' elsewhere']} elsewhere, {t[kind + ' none']} none")


if __name__ == "__main__":
    main()
