#!/usr/bin/env python3
"""How far two hand matrices of one tree agree, in init_corpus.py's measures.

    bench/hand_agreement.py CORPUS_DIR CHECKOUTS_DIR [--sota BIN] [--json]
                            [--second hand-b.toml] [--only A,B] [--init ALL.json]

Issue 30 sets per-tree targets for `sota init` against a hand matrix
(recall 0.95, precision 0.85, op agreement 0.85). A hand matrix is one
engineer's reading: where a second engineer, writing blind from the
same code, draws the kernel population or the op boundaries elsewhere,
no draft can meet both. This script measures that ceiling. For every
corpus tree with a second matrix (`CORPUS_DIR/<name>/hand-b.toml`), it
scores the second matrix exactly as init_corpus.py scores init's draft
against the first (`hand.toml` = truth): recall, precision, agreement,
purity and label, with the op globs expanded through `sota coverage`
as there (a hand matrix places every file it lists, so `in_op` is 1 by
construction and not printed). When no file is in two ops, agreement
of B against A is purity of A against B and recall and precision swap,
so one direction says it all.

Beside each tree it prints init's figures from an init_corpus.py
`--json` output when one is given (--init), so the draft's shortfall
can be read against the engineers' own, and init's population against
both readings: the recall of the files both engineers count (misses
nobody disputes) and the precision against the files either counts.
"""
import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import init_corpus as ic  # noqa: E402  (the same glob expansion and metrics)

TARGETS = {"recall": 0.95, "precision": 0.85, "agreement": 0.85}


def expand(sota, checkout, path):
    """file -> the matrix's op slugs holding it, through `sota coverage`."""
    ops, _ = ic.load_hand_ops(path)
    of = collections.defaultdict(set)
    for op in ops:
        for f in ic.coverage_files(sota, checkout, op["files"]):
            of[f].add(op["slug"])
    return of


def compare(truth, other, catalog):
    """init_corpus's measures of `other` scored against `truth` (each a
    file -> op slugs map); a file in two ops counts under its first slug."""
    first = {f: min(s) for f, s in other.items()}
    t, o = set(truth), set(other)
    agree_num = agree_den = 0
    for slug in sorted({s for ss in truth.values() for s in ss}):
        listed = sorted(f for f in t & o if slug in truth[f])
        counts = collections.Counter(first[f] for f in listed)
        agree_num += counts.most_common(1)[0][1] if counts else 0
        agree_den += len(listed)
    by_other = collections.defaultdict(collections.Counter)
    for f in t & o:
        by_other[first[f]][min(truth[f])] += 1
    pure_num = sum(c.most_common(1)[0][1] for c in by_other.values())
    labelled = [f for f in t & o if min(truth[f]) in catalog]
    return {
        "recall": ic.ratio(len(t & o), len(t)),
        "precision": ic.ratio(len(t & o), len(o)),
        "agreement": ic.ratio(agree_num, agree_den),
        "purity": ic.ratio(pure_num, sum(sum(c.values()) for c in by_other.values())),
        "label": ic.ratio(sum(1 for f in labelled if first[f] in truth[f]), len(labelled)),
        "files_a": len(t), "files_b": len(o),
        "ops_a": len({s for ss in truth.values() for s in ss}),
        "ops_b": len({s for ss in other.values() for s in ss}),
    }


def init_against_both(measured, a, b):
    """Init's population (from an init_corpus.py --json row) against what
    both engineers count (consensus recall: the misses nobody disputes)
    and what either counts (lenient precision)."""
    pop = {x["path"] for x in measured["assignments"]} | set(measured["unplaced"])
    both, either = a & b, a | b
    return {"init_consensus_recall": ic.ratio(len(pop & both), len(both)),
            "init_lenient_precision": ic.ratio(len(pop & either), len(pop))}


def meets(r):
    return all(r[k] is not None and r[k] >= t for k, t in TARGETS.items())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("checkouts")
    ap.add_argument("--sota", default="sota")
    ap.add_argument("--second", default="hand-b.toml", help="file name of the second matrix in a tree's directory")
    ap.add_argument("--only", default="")
    ap.add_argument("--init", help="an init_corpus.py --json output to print init's figures beside")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    sota = os.path.abspath(a.sota) if os.sep in a.sota else a.sota
    with open(os.path.join(a.corpus, "repos.json")) as fh:
        entries = json.load(fh)["repos"]
    only = set(filter(None, a.only.split(",")))
    init = {}
    if a.init:
        with open(a.init) as fh:
            init = {r["name"]: r for r in json.load(fh)["repos"] if "error" not in r}
    catalog = ic.catalog_slugs()
    rows = []
    for e in entries:
        second = os.path.join(a.corpus, e["name"], a.second)
        if not os.path.exists(second) or (only and e["name"] not in only):
            continue
        checkout = os.path.join(a.checkouts, e["checkout"])
        problem = (f"no git checkout at {checkout}" if not os.path.isdir(os.path.join(checkout, ".git"))
                   else ic.ensure_commit(checkout, e["commit"]))
        if problem:
            rows.append({"name": e["name"], "set": e["set"], "error": problem})
            continue
        truth = expand(sota, checkout, os.path.join(a.corpus, e["name"], "hand.toml"))
        other = expand(sota, checkout, second)
        row = {"name": e["name"], "set": e["set"], **compare(truth, other, catalog)}
        if e["name"] in init:
            row.update(init_against_both(init[e["name"]], set(truth), set(other)))
        rows.append(row)
    if a.json:
        json.dump({"schema": "sota.hand-agreement/v1", "sota": sota, "trees": rows}, sys.stdout, indent=1)
        print()
        return
    f = ic.fmt
    print(f"{'tree':22} {'set':12} {'A':>4} {'B':>4} {'opsA':>4} {'opsB':>4} {'recall':>6} {'prec':>6} "
          f"{'agree':>6} {'purity':>6} {'label':>6}  B meets | init: recall prec agree, meets | both-recall either-prec")
    for r in rows:
        if "error" in r:
            print(f"{r['name']:22} {r['set']:12} ERROR {r['error']}")
            continue
        line = (f"{r['name']:22} {r['set']:12} {r['files_a']:4d} {r['files_b']:4d} {r['ops_a']:4d} {r['ops_b']:4d} "
                f"{f(r['recall']):>6} {f(r['precision']):>6} {f(r['agreement']):>6} {f(r['purity']):>6} "
                f"{f(r['label']):>6}  {'yes' if meets(r) else 'no ':>7}")
        i = init.get(r["name"])
        if i:
            ok = meets(i) and i["in_op"] is not None and i["in_op"] >= 0.9
            line += f" | {f(i['recall'])} {f(i['precision'])} {f(i['agreement'])}, {'yes' if ok else 'no'}"
            line += f" | {f(r['init_consensus_recall'])} {f(r['init_lenient_precision'])}"
        print(line)
    good = [r for r in rows if "error" not in r]
    if good:
        means = " ".join(f"{f(ic.mean_of(good, k)):>6}" for k in ("recall", "precision", "agreement", "purity", "label"))
        print(f"{'mean':56} {means}  {sum(meets(r) for r in good)} of {len(good)} meet")
        both = [r for r in good if "init_consensus_recall" in r]
        if both:
            print(f"init against both engineers, {len(both)} trees: recall of the files both count "
                  f"{f(ic.mean_of(both, 'init_consensus_recall'))}, precision against the files either counts "
                  f"{f(ic.mean_of(both, 'init_lenient_precision'))}")


if __name__ == "__main__":
    main()
