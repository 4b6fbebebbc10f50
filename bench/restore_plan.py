#!/usr/bin/env python3
"""Plan which corpus repositories to fetch on a machine that lost its mirrors.

    bench/restore_plan.py CORPUS_DIR OUT_DIR [--mirrors /work/.mirror]
                          [--budget 500] [--helpers 7] [--seed 49]

The corpus (bench/init-corpus/repos.json) holds more trees than one
session may fetch (the search tool's `fetch` finds at most 500
repositories a session), so a new machine restores it in order of use:

  1. every fit tree (tuning needs all of them, to see what a rule breaks);
  2. one tree of each held-out set, chosen with --seed before any is
     measured (a held-out reading on every set's kind of code);
  3. the other held-out trees, as far as the budget goes (the rest next
     session: run this again, it skips what MIRRORS already holds).

Repositories already under MIRRORS/<owner>+<name>/repo cost nothing.
Writes OUT_DIR/fetch<i>.txt (one `owner/name` a line, one file per
helper: fetching is a tool call, not a shell command) and
OUT_DIR/clone.txt (`owner/name checkout commit` for every planned or
mirrored tree, the LISTFILE of bench/clone_corpus.sh), and prints the
held-out sample as an `--only` list for bench/init_corpus.py.
"""
import argparse
import collections
import json
import os
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--budget", type=int, default=500, help="fetches left this session")
    ap.add_argument("--helpers", type=int, default=7)
    ap.add_argument("--seed", type=int, default=49)
    a = ap.parse_args()
    with open(os.path.join(a.corpus, "repos.json")) as fh:
        entries = json.load(fh)["repos"]
    fit = [e for e in entries if e["set"] == "fit"]
    sets = collections.defaultdict(list)
    for e in entries:
        if e["set"] != "fit":
            sets[e["set"]].append(e)
    rng = random.Random(a.seed)
    sample = [rng.choice(sorted(sets[s], key=lambda e: e["name"])) for s in sorted(sets)]
    chosen = {e["name"] for e in sample}
    rest = [e for s in sorted(sets) for e in sets[s] if e["name"] not in chosen]

    def mirrored(e):
        return os.path.isdir(os.path.join(a.mirrors, e["repo"].replace("/", "+"), "repo"))

    plan, to_fetch = [], []
    for e in fit + sample + rest:
        if mirrored(e):
            plan.append(e)
        elif len(to_fetch) < a.budget:
            plan.append(e)
            to_fetch.append(e["repo"])
    os.makedirs(a.out, exist_ok=True)
    for i in range(a.helpers):
        with open(os.path.join(a.out, f"fetch{i}.txt"), "w") as fh:
            fh.writelines(r + "\n" for r in to_fetch[i::a.helpers])
    with open(os.path.join(a.out, "clone.txt"), "w") as fh:
        fh.writelines(f"{e['repo']} {e['checkout']} {e['commit']}\n" for e in plan)
    planned = {e["name"] for e in plan}
    print(f"{len(to_fetch)} to fetch ({a.helpers} lists), {len(plan) - len(to_fetch)} already mirrored; "
          f"fit {sum(e['name'] in planned for e in fit)}/{len(fit)}, "
          f"held-out sample {sum(e['name'] in planned for e in sample)}/{len(sample)}, "
          f"other held-out {sum(e['name'] in planned for e in rest)}/{len(rest)}")
    print("held-out sample (--only): " + ",".join(e["name"] for e in sample if e["name"] in planned))


if __name__ == "__main__":
    main()
