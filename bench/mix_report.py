#!/usr/bin/env python3
"""Table (Markdown) and optional SVG plot from bench/mix.sh results.

    bench/mix_report.py RESULT.json... [--svg OUT.svg]

Per-file cost is the coverage median divided by the tracked files, for sota
and for `git ls-files -z`; flat rows as files and ops grow mean the matcher
pays per path, not per glob.
"""
import json
import sys

args = sys.argv[1:]
svg = None
if "--svg" in args:
    i = args.index("--svg")
    svg = args[i + 1]
    del args[i:i + 2]
rows = sorted((json.load(open(p)) for p in args), key=lambda r: (r["files"], r["ops"]))
print("| files | ops | globs | git ls-files ms | coverage ms | ratio (paired) | µs/file sota | µs/file git "
      "| git diff ms | gate ms | ratio (paired) | `sota <file>` ms | `sota list` ms | load |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:--|")
for r in rows:
    m, p = r["median_ms"], r["paired_ratio"]
    f = r["files"]
    print(f"| {f:,} | {r['ops']:,} | {r['globs']:,} | {m['git ls-files -z']:.1f} | {m['sota coverage']:.1f} "
          f"| {m['sota coverage'] / m['git ls-files -z']:.2f} ({p['coverage']:.2f}) "
          f"| {m['sota coverage'] * 1e3 / f:.2f} | {m['git ls-files -z'] * 1e3 / f:.2f} "
          f"| {m['git diff --cached --name-only']:.1f} | {m['sota gate']:.1f} "
          f"| {m['sota gate'] / m['git diff --cached --name-only']:.2f} ({p['gate']:.2f}) "
          f"| {m['sota <file>']:.1f} | {m['sota list']:.1f} | {' '.join(r['load'])} |")

if svg:
    # Per-file coverage cost against files, one line per op count, log x.
    import math
    W, H, L, B = 640, 360, 70, 50
    xs = sorted({r["files"] for r in rows})
    ys = [r["median_ms"]["sota coverage"] * 1e3 / r["files"] for r in rows]
    ys += [r["median_ms"]["git ls-files -z"] * 1e3 / r["files"] for r in rows]
    ymax = max(ys) * 1.15
    lx = lambda f: L + (math.log10(f) - math.log10(xs[0])) / max(1e-9, math.log10(xs[-1]) - math.log10(xs[0])) * (W - L - 20)
    ly = lambda v: H - B - v / ymax * (H - B - 20)
    colors = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
             f'<line x1="{L}" y1="{H - B}" x2="{W - 20}" y2="{H - B}" stroke="black"/>',
             f'<line x1="{L}" y1="{H - B}" x2="{L}" y2="20" stroke="black"/>',
             f'<text x="{W / 2}" y="{H - 10}" text-anchor="middle">tracked files (log)</text>',
             f'<text x="15" y="{H / 2}" transform="rotate(-90 15 {H / 2})" text-anchor="middle">µs per file (coverage, whole process)</text>']
    for f in xs:
        parts.append(f'<text x="{lx(f)}" y="{H - B + 16}" text-anchor="middle">{f:,}</text>')
    for i in range(5):
        v = ymax * i / 4
        parts.append(f'<text x="{L - 6}" y="{ly(v) + 4}" text-anchor="end">{v:.2f}</text>')
    series = [(f"sota, {o:,} ops", [(r["files"], r["median_ms"]["sota coverage"] * 1e3 / r["files"]) for r in rows if r["ops"] == o])
              for o in sorted({r["ops"] for r in rows})]
    git = {}
    for r in rows:
        git.setdefault(r["files"], []).append(r["median_ms"]["git ls-files -z"] * 1e3 / r["files"])
    series.append(("git ls-files -z", [(f, sorted(v)[len(v) // 2]) for f, v in sorted(git.items())]))
    for k, (name, pts) in enumerate(series):
        c = colors[k % len(colors)] if name.startswith("sota") else "#666"
        d = " ".join(f"{lx(f):.1f},{ly(v):.1f}" for f, v in pts)
        parts.append(f'<polyline points="{d}" fill="none" stroke="{c}" stroke-width="2"'
                     + (' stroke-dasharray="5,4"' if not name.startswith("sota") else "") + "/>")
        for f, v in pts:
            parts.append(f'<circle cx="{lx(f):.1f}" cy="{ly(v):.1f}" r="3" fill="{c}"/>')
        parts.append(f'<text x="{W - 180}" y="{30 + 16 * k}" fill="{c}">{name}</text>')
    parts.append("</svg>")
    open(svg, "w").write("\n".join(parts) + "\n")
