#!/usr/bin/env python3
"""Print a Markdown table of medians (and min, max) from hyperfine --export-json files."""
import json
import sys

print("| command | median ms | min ms | max ms | runs |")
print("|:---|---:|---:|---:|---:|")
for path in sys.argv[1:]:
    with open(path) as f:
        for r in json.load(f)["results"]:
            print(f"| `{r['command']}` | {r['median'] * 1e3:.2f} | {r['min'] * 1e3:.2f} | {r['max'] * 1e3:.2f} | {len(r['times'])} |")
