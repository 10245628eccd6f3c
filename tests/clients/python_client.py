#!/usr/bin/env python3
"""Black-box test: the official Python MCP SDK drives the real ctxloop binary.

    python python_client.py ./target/release/ctxloop tests/fixtures/authsvc

Runs the same checks in both protocol eras the SDK speaks:

- mode="legacy": the 2025-11-25 `initialize` handshake;
- mode="auto":   the 2026-07-28 `server/discover` lifecycle (the SDK falls back to
                 `initialize` on servers without it, so the negotiated version is
                 asserted: a silent fallback would test the legacy era twice).

Checks, against `serve --root <fixture>` (the fixture's known answer: the token
expiry bug lives in auth/token.py, see tests/mcp_tools.rs):

1. tools/list names exactly retrieve, dispatch, evaluate, refine, each read-only
   with an object input schema and an output schema;
2. retrieve("Fix the token expiry bug") ranks auth/token.py first, in the
   structured result and in the text rendering (the SDK also validates the
   structured result against the tool's outputSchema);
3. dispatch -> evaluate -> refine keep one session across calls;
4. bad input (empty task, max_cycles 0, unknown session) is an `isError` result
   whose text says what was wrong and how to fix it, and the server still answers.

Exit status: 0 when every check passed, 1 with a FAIL line naming the era and
the check otherwise.
"""

from __future__ import annotations

import asyncio
import json
import sys
from importlib.metadata import version
from pathlib import Path

from mcp import Client, StdioServerParameters

TOOLS = {"retrieve", "dispatch", "evaluate", "refine"}
TASK = "Fix the token expiry bug"
EXPECTED_FIRST = "auth/token.py"
# Negotiated protocol version per SDK mode.
ERAS = {"legacy": "2025-11-25", "auto": "2026-07-28"}
TIMEOUT_S = 60


class CheckFailed(Exception):
    pass


def check(cond: bool, what: str, detail: object = "") -> None:
    if not cond:
        text = detail if isinstance(detail, str) else json.dumps(detail, default=str)[:2000]
        raise CheckFailed(f"{what}\n  got: {text}" if text else what)


def leaves(e: BaseException):
    """The exceptions inside `e`: the SDK's task groups wrap a failed check in ExceptionGroups."""
    if isinstance(e, BaseExceptionGroup):
        for sub in e.exceptions:
            yield from leaves(sub)
    else:
        yield e


def text_of(result) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def expect_error(client: Client, tool: str, args: dict, *needles: str) -> None:
    r = await client.call_tool(tool, args)
    msg = text_of(r)
    check(r.is_error is True, f"{tool}({args}) should be an isError result", msg)
    for needle in needles:
        check(needle in msg, f"{tool}({args}): the error text should contain {needle!r}", msg)


async def run_era(binary: str, fixture: str, mode: str) -> None:
    params = StdioServerParameters(command=binary, args=["serve", "--root", fixture])
    async with Client(params, mode=mode, read_timeout_seconds=TIMEOUT_S) as client:
        check(
            client.protocol_version == ERAS[mode],
            f"mode={mode!r} should negotiate protocol {ERAS[mode]}",
            client.protocol_version,
        )
        if client.server_info is not None or mode == "legacy":
            name = client.server_info.name if client.server_info else None
            check(name == "ctxloop", "server_info.name should be ctxloop", name)

        # 1. The four tools, read-only, with input and output schemas.
        listed = await client.list_tools()
        tools = {t.name: t for t in listed.tools}
        check(set(tools) == TOOLS, f"tools/list should name exactly {sorted(TOOLS)}", sorted(tools))
        for name, tool in tools.items():
            check(tool.description, f"{name} has a description")
            check(tool.input_schema.get("type") == "object", f"{name}: inputSchema is an object", tool.input_schema)
            check(tool.output_schema is not None, f"{name} has an outputSchema")
            check(tool.output_schema.get("type") == "object", f"{name}: outputSchema is an object", tool.output_schema)
            check(
                tool.annotations is not None and tool.annotations.read_only_hint is True,
                f"{name} is readOnlyHint: true",
                tool.annotations,
            )
        retrieve = tools["retrieve"]
        check("task" in retrieve.input_schema.get("required", []), "retrieve requires `task`", retrieve.input_schema)
        for arg in ("root", "patterns", "keywords", "excludes", "max_cycles", "limit", "budget_tokens"):
            check(arg in retrieve.input_schema["properties"], f"retrieve takes `{arg}`", retrieve.input_schema)
        for field in ("files", "gaps", "stop_reason", "cycles", "root", "stats"):
            check(field in retrieve.output_schema["properties"], f"retrieve's outputSchema has `{field}`")
        check("session_id" in tools["evaluate"].input_schema.get("required", []), "evaluate requires `session_id`")

        # 2. retrieve on the fixture: the file with the bug comes first.
        r = await client.call_tool("retrieve", {"task": TASK})
        check(r.is_error is not True, f"retrieve({TASK!r}) should succeed", text_of(r))
        out = r.structured_content
        check(isinstance(out, dict), "retrieve returns structuredContent", out)
        paths = [f["path"] for f in out["files"]]
        check(paths[:1] == [EXPECTED_FIRST], f"retrieve should rank {EXPECTED_FIRST} first", paths)
        check(out["files"][0]["tier"] == "high", f"{EXPECTED_FIRST} is high tier", out["files"][0])
        check(out["files"][0]["snippets"], f"{EXPECTED_FIRST} comes with snippets", out["files"][0])
        check(out["root"]["path"] == fixture, "root.path is the absolute --root", out["root"])
        check(out["stop_reason"] in {"sufficient", "max_cycles", "converged", "budget", "no_candidates"},
              "stop_reason is one of the documented values", out["stop_reason"])
        text = text_of(r)
        check(f"#1 {EXPECTED_FIRST}" in text, f"the text rendering ranks {EXPECTED_FIRST} first", text[:500])

        # 3. The step-wise loop keeps its session across calls.
        d = await client.call_tool("dispatch", {"task": TASK})
        check(d.is_error is not True, "dispatch(task) should succeed", text_of(d))
        sid = d.structured_content["session_id"]
        cands = [f["path"] for f in d.structured_content["candidates"]]
        check(EXPECTED_FIRST in cands, f"dispatch finds {EXPECTED_FIRST}", cands)
        e = await client.call_tool(
            "evaluate", {"session_id": sid, "judgments": [{"path": EXPECTED_FIRST, "relevance": 0.95}]}
        )
        check(e.is_error is not True, "evaluate(session_id) should succeed", text_of(e))
        rel = {f["path"]: f["relevance"] for f in e.structured_content["evaluations"]}
        check(rel.get(EXPECTED_FIRST) == 0.95, "the agent's judgment replaces the server's score", rel)
        check(e.structured_content["decision"] in {"finalize", "refine"}, "evaluate decides", e.structured_content)
        f = await client.call_tool("refine", {"session_id": sid, "keywords": ["is_expired"]})
        check(f.is_error is not True, "refine(session_id) should succeed", text_of(f))
        check("is_expired" in f.structured_content["query"]["keywords"], "refine adds the agent's keyword",
              f.structured_content["query"])

        # 4. Bad input: an isError result that says what is wrong and how to fix it.
        await expect_error(client, "retrieve", {"task": "   "}, "task is empty", "pass a non-empty")
        await expect_error(client, "retrieve", {"task": "x", "max_cycles": 0},
                           "`max_cycles` = 0 is out of range", "between 1 and 10")
        await expect_error(client, "evaluate", {"session_id": "nope"}, "unknown session", "dispatch")
        # The server still answers after errors.
        r = await client.call_tool("retrieve", {"task": "session refresh margin"})
        check(r.is_error is not True, "retrieve still works after the errors", text_of(r))


async def main() -> int:
    if len(sys.argv) != 3:
        print(f"usage: {sys.argv[0]} CTXLOOP_BINARY FIXTURE_DIR", file=sys.stderr)
        return 2
    binary = str(Path(sys.argv[1]).resolve())
    fixture = str(Path(sys.argv[2]).resolve())
    sdk = f"python mcp {version('mcp')}"
    failed = False
    for mode in ERAS:
        label = f"{sdk}, mode={mode} ({ERAS[mode]})"
        try:
            await asyncio.wait_for(run_era(binary, fixture, mode), timeout=3 * TIMEOUT_S)
        except Exception as e:  # a failed check, a crash, a timeout or a protocol error
            for leaf in leaves(e):
                why = str(leaf) if isinstance(leaf, CheckFailed) else f"{type(leaf).__name__}: {leaf}"
                print(f"FAIL [{label}]: {why}", file=sys.stderr)
            failed = True
        else:
            print(f"ok   [{label}]: 4 tools listed with schemas, retrieve ranks {EXPECTED_FIRST} first, "
                  "dispatch/evaluate/refine, 3 error results")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
