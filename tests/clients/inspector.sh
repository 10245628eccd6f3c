#!/usr/bin/env bash
# Black-box test: the MCP Inspector CLI drives the real ctxloop binary.
#
#   bash tests/clients/inspector.sh CTXLOOP_BINARY FIXTURE_DIR MCP_INSPECTOR
#
# (tests/clients/run.sh installs the pinned Inspector and calls this.) Runs the
# same checks in both protocol eras the Inspector speaks, and reads the wire to
# make sure the era really is the one asked for:
#   legacy - the 2025-11-25 `initialize` handshake;
#   modern - the 2026-07-28 lifecycle (`server/discover`, per-request _meta).
# Checks, against `serve --root <fixture>` (the token expiry bug lives in
# auth/token.py, see tests/mcp_tools.rs):
#   1. tools/list --strict: exactly retrieve, dispatch, evaluate, refine, each
#      read-only with object input and output schemas, and no schema
#      portability error (the Inspector exits 6 on one);
#   2. tools/call retrieve "Fix the token expiry bug": auth/token.py first, in
#      structuredContent and in the text;
#   3. tools/call retrieve with an empty task and with max_cycles=0: exit 5
#      (tool error) with isError: true and a message that says how to fix it.
# Exit status 0 when every check passed; 1 with a FAIL line otherwise.
set -euo pipefail

if [[ $# -ne 3 ]]; then
    echo "usage: $0 CTXLOOP_BINARY FIXTURE_DIR MCP_INSPECTOR" >&2
    exit 2
fi
BIN=$(realpath "$1")
FIXTURE=$(realpath "$2")
INSPECTOR=$3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

ERA=""
fail() {
    echo "FAIL [mcp-inspector $("$INSPECTOR" --version 2>/dev/null), era=$ERA]: $*" >&2
    exit 1
}

# expect NAME DESCRIPTION EXPRESSION: EXPRESSION over `r`, the JSON in $WORK/NAME.json.
expect() {
    node "$HERE/expect.mjs" "$WORK/$1.json" "$2" "$3" || fail "$1: $2"
}

# inspect NAME WANT_EXIT INSPECTOR_ARGS...: one Inspector run against the server.
# stdout goes to $WORK/NAME.json; the JSON-RPC the client sent to $WORK/NAME.wire.
inspect() {
    local name=$1 want=$2 rc=0
    shift 2
    "$INSPECTOR" --cli --protocol-era "$ERA" --format json "$@" -- \
        bash -c 'tee "$0" | exec "$1" serve --root "$2"' "$WORK/$name.wire" "$BIN" "$FIXTURE" \
        >"$WORK/$name.json" 2>"$WORK/$name.err" || rc=$?
    if [[ $rc -ne $want ]]; then
        # The Inspector's stderr holds its own notes (e.g. ajv's "unknown format"); show it only now.
        echo "--- stderr of the Inspector and the server:" >&2
        grep -v 'unknown format' "$WORK/$name.err" | head -40 >&2 || true
        echo "--- stdout:" >&2
        head -c 2000 "$WORK/$name.json" >&2 || true
        echo >&2
        fail "$name: the Inspector exited with $rc, expected $want (0 ok, 5 tool error, 6 schema portability error)"
    fi
}

for ERA in legacy modern; do
    # 1. tools/list
    inspect list 0 --method tools/list --strict
    expect list "exactly the four tools" \
        'JSON.stringify(r.result.tools.map(t => t.name).sort()) === JSON.stringify(["dispatch","evaluate","refine","retrieve"])'
    expect list "every tool has an object inputSchema and outputSchema" \
        'r.result.tools.every(t => t.inputSchema.type === "object" && t.outputSchema && t.outputSchema.type === "object")'
    expect list "every tool is readOnlyHint: true" \
        'r.result.tools.every(t => t.annotations && t.annotations.readOnlyHint === true)'
    expect list "retrieve requires task and outputs files, gaps, stop_reason, cycles, root, stats" \
        '(t => t.inputSchema.required.includes("task") && ["files","gaps","stop_reason","cycles","root","stats"].every(k => k in t.outputSchema.properties))(r.result.tools.find(t => t.name === "retrieve"))'

    # The era is the one asked for: legacy opens with initialize; modern never sends it
    # and stamps 2026-07-28 on every request.
    case $ERA in
    legacy)
        head -n1 "$WORK/list.wire" | grep -q '"method":"initialize"' ||
            fail "legacy era: the first message should be initialize, got: $(head -c 300 "$WORK/list.wire")"
        ;;
    modern)
        if grep -q '"method":"initialize"' "$WORK/list.wire"; then
            fail "modern era: the client sent initialize: $(head -c 300 "$WORK/list.wire")"
        fi
        grep '"method":"tools/list"' "$WORK/list.wire" | grep -q '"io.modelcontextprotocol/protocolVersion":"2026-07-28"' ||
            fail "modern era: tools/list should carry protocolVersion 2026-07-28: $(head -c 600 "$WORK/list.wire")"
        ;;
    esac

    # 2. retrieve on the fixture
    inspect retrieve 0 --method tools/call --tool-name retrieve --tool-arg "task=Fix the token expiry bug"
    expect retrieve "a successful result" 'r.result.isError !== true'
    expect retrieve "auth/token.py ranked first in structuredContent" \
        'r.result.structuredContent.files[0].path === "auth/token.py" && r.result.structuredContent.files[0].tier === "high"'
    expect retrieve "root.path is the --root" \
        "r.result.structuredContent.root.path === $(node -p 'JSON.stringify(process.argv[1])' "$FIXTURE")"
    expect retrieve "auth/token.py ranked first in the text rendering" \
        'r.result.content[0].type === "text" && r.result.content[0].text.includes("#1 auth/token.py")'

    # 3. invalid calls: an isError result that says how to fix the input
    inspect empty_task 5 --method tools/call --tool-name retrieve --tool-args-json '{"task": "   "}'
    expect empty_task "isError with a message that asks for a non-empty task" \
        'r.result.isError === true && r.result.content[0].text.includes("task is empty: pass a non-empty")'
    inspect zero_cycles 5 --method tools/call --tool-name retrieve --tool-arg task=x max_cycles=0
    expect zero_cycles "isError with a message that gives the valid range" \
        'r.result.isError === true && r.result.content[0].text.includes("`max_cycles` = 0 is out of range: it must be between 1 and 10")'

    echo "ok   [mcp-inspector $("$INSPECTOR" --version), era=$ERA]: 4 tools listed with schemas (--strict)," \
        "retrieve ranks auth/token.py first, 2 error results"
done
