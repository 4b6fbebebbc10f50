#!/usr/bin/env python3
"""`sota mcp` checked with the official Python MCP SDK (`pip install mcp`).

Usage: mcp_client.py SOTA_BIN REPO_DIR

A real client over stdio: initialize, list the tools and resources, call
every tool on questions drawn from the repository itself (its first ops, its
tracked files) and compare each structured result with `sota ... --json`
for the same question; then path traversal attempts, and garbage on stdin
followed by a valid request (raw JSON lines: no SDK sends garbage).

Prints one line per check and closes with 'N passed, N failed'; exits 1 on
any failure, 3 when the `mcp` module is missing.
"""

import asyncio
import json
import os
import subprocess
import sys

try:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
except ImportError:  # the Rust driver decides whether that is allowed
    print("mcp_client.py: the `mcp` Python module is missing (pip install mcp)")
    sys.exit(3)

SOTA, REPO = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
ENV = {k: v for k, v in os.environ.items() if k not in ("SOTA_MATRIX", "CI", "GITHUB_ACTIONS")}
ENV["NO_COLOR"] = "1"
RESULTS = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    RESULTS["passed" if ok else "failed"] += 1
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f"\n     {detail}"))


def cli_json(*args):
    out = subprocess.run([SOTA, *args, "--json"], cwd=REPO, env=ENV, capture_output=True, text=True)
    return json.loads(out.stdout)


def tracked_files():
    out = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True)
    return [p for p in out.stdout.splitlines() if p]


async def sdk_session():
    params = StdioServerParameters(command=SOTA, args=["mcp"], cwd=REPO, env=ENV)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check("initialize names the server", init.server_info.name == "sota", init)

            tools = {t.name: t for t in (await session.list_tools()).tools}
            want = ["lookup", "ops_for_paths", "milestones", "coverage", "suggest", "catalog_search", "prove"]
            check("tools/list has every tool", sorted(tools) == sorted(want), sorted(tools))
            for name, tool in tools.items():
                check(f"{name} has an input schema and a description",
                      tool.input_schema.get("type") == "object" and len(tool.description or "") > 80,
                      tool)

            resources = [str(r.uri) for r in (await session.list_resources()).resources]
            check("resources/list", resources == ["sota://matrix", "sota://matrix/table", "sota://milestones/table"], resources)
            table = await session.read_resource("sota://matrix/table")
            check("the matrix table reads", "|" in table.contents[0].text, table)

            ops = cli_json("list")["ops"]
            slug = ops[0]["slug"]
            files = tracked_files()
            gate = cli_json("gate", "--paths", *files) if files else {"advisories": []}
            covered = sorted({p for a in gate["advisories"] for p in a["paths"]})[:3]
            questions = [
                ("lookup", {"query": slug}, [slug]),
                ("lookup", {"query": "attention"}, ["attention"]),
                ("lookup", {"query": slug[:-1] + "x"}, [slug[:-1] + "x"]),
                ("milestones", {}, ["milestones"]),
                ("coverage", {}, ["coverage"]),
                ("catalog_search", {"query": "flash attention"}, ["--catalog", "flash", "attention"]),
                ("catalog_search", {}, ["--catalog", "list"]),
            ]
            if covered:
                questions.append(("ops_for_paths", {"paths": covered}, ["gate", "--paths", *covered]))
                questions.append(("suggest", {"paths": covered}, ["suggest", *covered]))
                questions.append(("lookup", {"query": covered[0] + ":1"}, [covered[0] + ":1"]))
            if files:
                # No op covers them: the catalog's best match, as `sota suggest`.
                first = files[:5]
                touched = cli_json("gate", "--paths", *first).get("touched")
                argv = ["gate", "--paths", *first] if touched else ["suggest", *first]
                questions.append(("ops_for_paths", {"paths": first}, argv))
            for tool, args, argv in questions:
                result = await session.call_tool(tool, args)
                want = cli_json(*argv)
                check(f"{tool} {json.dumps(args)[:60]} == sota {' '.join(argv)[:40]} --json",
                      result.structured_content == want and not result.is_error,
                      f"mcp: {json.dumps(result.structured_content)[:300]}\n     cli: {json.dumps(want)[:300]}")
                text = "".join(c.text for c in result.content if c.type == "text")
                check(f"{tool} has a text rendering", text.strip() != "" and "\x1b" not in text, text[:200])
            if covered:
                result = await session.call_tool("ops_for_paths", {"paths": covered})
                adv = result.structured_content["advisories"]
                check("ops_for_paths gives a ready-to-paste trailer",
                      all(a["suggested_trailer"].startswith("Prior-art: ") for a in adv) and "Prior-art:" in result.content[0].text,
                      adv)

            for bad in ["../../etc/passwd", "/etc/passwd", os.path.join(os.path.dirname(os.path.abspath(REPO)), "x.cu")]:
                for tool, args in [("ops_for_paths", {"paths": [bad]}), ("lookup", {"query": bad})]:
                    result = await session.call_tool(tool, args)
                    sc = result.structured_content or {}
                    check(f"{tool} refuses {bad}",
                          result.is_error and sc.get("schema") == "sota.error/v1"
                          and "outside the repository root" in sc.get("message", ""),
                          result)


def raw_garbage_then_valid():
    proc = subprocess.Popen([SOTA, "mcp"], cwd=REPO, env=ENV, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = [
        "}{ not json at all",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "\x00\x01 binary junk",
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "no/such/method"}),
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                    "params": {"name": "milestones", "arguments": {"axis": 42}}}),
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                    "params": {"name": "milestones", "arguments": {}}}),
    ]
    out, err = proc.communicate("\n".join(lines) + "\n", timeout=30)
    replies = [json.loads(line) for line in out.splitlines()]
    by_id = {json.dumps(r.get("id")): r for r in replies}
    codes = [r["error"]["code"] for r in replies if r.get("id") is None]
    check("garbage gets parse errors (id null)", codes == [-32700, -32700], replies)
    check("an unknown method gets -32601", by_id["2"]["error"]["code"] == -32601, by_id.get("2"))
    check("a wrong argument type gets -32602", by_id["3"]["error"]["code"] == -32602, by_id.get("3"))
    check("the valid request after the garbage is answered",
          by_id["4"]["result"]["structuredContent"]["schema"] == "sota.milestones/v1", by_id.get("4"))
    check("EOF ends the server cleanly, nothing on stderr", proc.returncode == 0 and err == "", (proc.returncode, err))


asyncio.run(sdk_session())
raw_garbage_then_valid()
print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
sys.exit(1 if RESULTS["failed"] else 0)
