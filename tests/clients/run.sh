#!/usr/bin/env bash
# Black-box MCP client tests: independent MCP clients drive the release binary
# over stdio, as agent configurations launch it.
#
#   bash tests/clients/run.sh
#
# 1. builds ./target/release/ctxloop (`cargo build --release`);
# 2. installs the pinned clients into <target dir>/clients/ (never into the
#    system or the home directory): the Python `mcp` SDK in a venv
#    (requirements.txt) and the MCP Inspector CLI (package.json and
#    package-lock.json; npm runs with HOME set to that scratch dir);
# 3. runs python_client.py (protocol eras 2025-11-25 and 2026-07-28) and
#    inspector.sh (the same two eras) against `serve --root tests/fixtures/authsvc`.
# Needs python3 (>= 3.10, with venv and pip), node and npm, and network access
# to PyPI and the npm registry on the first run. Exits non-zero on the first
# failing client, with a FAIL line naming the check.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
HERE=tests/clients
FIXTURE=tests/fixtures/authsvc

for tool in python3 node npm; do
    command -v "$tool" >/dev/null || {
        echo "FAIL: $tool is not installed; the MCP client tests need python3, node and npm" >&2
        exit 1
    }
done

echo "--- cargo build --release"
cargo build --release
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
BIN="$TARGET_DIR/release/ctxloop"
SCRATCH="$TARGET_DIR/clients"
mkdir -p "$SCRATCH/home" "$SCRATCH/npm"

echo "--- Python mcp SDK ($(grep '^mcp==' $HERE/requirements.txt)) into $SCRATCH/venv"
[[ -x "$SCRATCH/venv/bin/python" ]] || python3 -m venv "$SCRATCH/venv"
# Wheels only: no compiler needed, and every version is the pinned one. The cache
# goes to the scratch dir too (not HOME=scratch: pip runs `rustc --version` for its
# user agent, and rustup's proxy would then set up a ~/.rustup there).
PIP_CACHE_DIR="$SCRATCH/pip-cache" "$SCRATCH/venv/bin/python" -m pip install --quiet \
    --disable-pip-version-check --only-binary=:all: -r "$HERE/requirements.txt"

echo "--- MCP Inspector ($(node -p 'require("./tests/clients/package.json").dependencies["@modelcontextprotocol/inspector"]')) into $SCRATCH/npm"
cp "$HERE/package.json" "$HERE/package-lock.json" "$SCRATCH/npm/"
# `npm install` against the committed lockfile (`npm ci` refuses it: npm 11 leaves a
# Windows-only optional dependency out of the lock). --ignore-scripts: the only
# script, the Inspector's postinstall, does nothing when it is a dependency.
(cd "$SCRATCH/npm" && HOME="$SCRATCH/home" npm install --ignore-scripts --no-audit --no-fund \
    --loglevel=error --no-update-notifier >/dev/null)
if ! cmp -s "$HERE/package-lock.json" "$SCRATCH/npm/package-lock.json"; then
    echo "FAIL: npm changed the pinned tests/clients/package-lock.json; regenerate it (see tests/clients/package.json)" >&2
    diff "$HERE/package-lock.json" "$SCRATCH/npm/package-lock.json" | head -20 >&2 || true
    exit 1
fi

echo "--- Python SDK client"
"$SCRATCH/venv/bin/python" "$HERE/python_client.py" "$BIN" "$FIXTURE"

echo "--- MCP Inspector CLI"
HOME="$SCRATCH/home" bash "$HERE/inspector.sh" "$BIN" "$FIXTURE" "$SCRATCH/npm/node_modules/.bin/mcp-inspector"
