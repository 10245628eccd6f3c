#!/usr/bin/env bash
# The PyPI channel: builds the `bindings = "bin"` wheel (pyproject.toml) with a
# pinned maturin, installs it into a fresh venv and runs the `ctxloop` it puts
# on that venv's PATH: `--version` and a `retrieve` on tests/fixtures/authsvc.
#
#   bash tests/clients/wheel.sh
#
# Everything goes under <target dir>/wheel/: maturin's and uv's venv (from PyPI,
# wheels only), the built wheel in dist/, the throwaway venv it is installed
# into, and uv's cache. Last, `uvx --offline --from <wheel> ctxloop serve`
# answers an MCP initialize.
# maturin builds with cargo's release profile into the same target dir, so
# after `cargo build --release` (tests/clients/run.sh) it compiles nothing
# (about 1 s; about 1.5 min for the crate alone when run first). No --strip
# here: stripping makes maturin build the crate again (~55 s); the release
# workflow strips.
# Exits non-zero with a FAIL line on the first failing check.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
MATURIN_VERSION=1.16.0
UV_VERSION=0.13.9
FIXTURE=tests/fixtures/authsvc

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

TARGET_DIR=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
SCRATCH="$TARGET_DIR/wheel"
mkdir -p "$SCRATCH"

echo "--- maturin $MATURIN_VERSION into $SCRATCH/build-venv"
[[ -x "$SCRATCH/build-venv/bin/python" ]] || python3 -m venv "$SCRATCH/build-venv"
PIP_CACHE_DIR="$SCRATCH/pip-cache" "$SCRATCH/build-venv/bin/python" -m pip install --quiet \
    --disable-pip-version-check --only-binary=:all: "maturin==$MATURIN_VERSION" "uv==$UV_VERSION"

echo "--- maturin build --release"
rm -rf "$SCRATCH/dist"
"$SCRATCH/build-venv/bin/maturin" build --release --out "$SCRATCH/dist"
shopt -s nullglob
wheels=("$SCRATCH"/dist/ctxloop-*.whl)
[[ ${#wheels[@]} -eq 1 ]] || fail "expected one wheel in $SCRATCH/dist, found ${#wheels[@]}"
echo "built $(basename "${wheels[0]}") ($(du -h "${wheels[0]}" | cut -f1))"

echo "--- pip install the wheel into a fresh venv"
rm -rf "$SCRATCH/venv"
python3 -m venv "$SCRATCH/venv"
# --no-index: the wheel has no dependencies, so nothing may come from PyPI.
"$SCRATCH/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "${wheels[0]}"
BIN="$SCRATCH/venv/bin/ctxloop"
[[ -x "$BIN" ]] || fail "the wheel did not install a ctxloop executable into the venv's bin/"

echo "--- ctxloop --version (from the wheel)"
version=$("$BIN" --version)
echo "$version"
want="ctxloop $(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["packages"][0]["version"])') (commit "
[[ "$version" == "$want"* && "$version" != *"(commit unknown)" ]] ||
    fail "the wheel's ctxloop --version printed '$version', expected '$want<short hash>)'"

echo "--- ctxloop retrieve (from the wheel) on $FIXTURE"
out="$SCRATCH/retrieve.json"
rm -f "$out"
"$BIN" retrieve "fix the token expiry bug" --root "$FIXTURE" --format json --out "$out"
python3 - "$out" <<'PY' || fail "the wheel's retrieve did not rank auth/token.py first"
import json, sys
files = json.load(open(sys.argv[1]))["files"]
print("top files:", [f["path"] for f in files[:3]])
sys.exit(0 if files and files[0]["path"] == "auth/token.py" else 1)
PY
echo "--- uvx --from <wheel> ctxloop serve (offline; the README's uvx line, from the local wheel)"
# uv's cache, tool dirs and Python discovery stay under the scratch dir.
export UV_CACHE_DIR="$SCRATCH/uv-cache" UV_TOOL_DIR="$SCRATCH/uv-tools" UV_NO_CONFIG=1
uvx=("$SCRATCH/build-venv/bin/uvx" --offline --python "$SCRATCH/venv/bin/python" --from "${wheels[0]}")
"${uvx[@]}" ctxloop --version | grep -qF "$version" || fail "uvx --from the wheel: ctxloop --version differs"
# `serve` answers an MCP initialize on stdin and exits when stdin closes.
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wheel.sh","version":"0"}}}'
reply=$(printf '%s\n' "$init" | "${uvx[@]}" ctxloop serve --root "$FIXTURE")
grep -q '"serverInfo":{[^}]*"name":"ctxloop"' <<<"$reply" || fail "uvx ctxloop serve did not answer initialize: $reply"
echo "uvx ctxloop serve answered initialize"
echo "ok: the wheel installs a working ctxloop"
