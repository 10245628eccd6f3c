#!/usr/bin/env bash
# The real agent CLIs register ctxloop with the README's one-liners:
#
#   bash tests/clients/agents.sh
#
# 1. installs the Claude Code, Codex and Gemini CLIs from npm, pinned below,
#    into <target dir>/agents/npm (never globally), with HOME set to a
#    throwaway <target dir>/agents/home (wiped on each run);
# 2. puts the release binary on PATH as `ctxloop` (tests/clients/run.sh builds
#    it), registers it with `claude mcp add ctxloop -- ctxloop serve --root .`
#    and `codex mcp add ctxloop -- ctxloop serve --root .` in a scratch project;
# 3. checks that `claude mcp list` reports it connected (it starts the server and
#    runs the MCP handshake) and `codex mcp list --json` lists it enabled; the
#    same for the Gemini CLI (`gemini mcp add`, `gemini mcp list`: connected);
# 4. validates the Claude Code plugin (.claude-plugin/, agents/) with
#    `claude plugin validate --strict`, installs it from this repository as a
#    marketplace and checks that its MCP server is reported connected too.
# No account is needed: none of these commands talks to a model.
# Exits non-zero with a FAIL line on the first failing check.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
REPO=$PWD
# `npm view @anthropic-ai/claude-code version`, `npm view @openai/codex version`.
CLAUDE_CODE_VERSION=2.1.332
CODEX_VERSION=0.171.0
# `npm view @google/gemini-cli version`.
GEMINI_VERSION=0.61.0

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

TARGET_DIR=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
BIN_DIR="$TARGET_DIR/release"
[[ -x "$BIN_DIR/ctxloop" ]] || fail "$BIN_DIR/ctxloop is missing: run cargo build --release first"
SCRATCH="$TARGET_DIR/agents"
rm -rf "$SCRATCH/home" "$SCRATCH/project"
mkdir -p "$SCRATCH/home" "$SCRATCH/npm" "$SCRATCH/project"
export HOME="$SCRATCH/home"
# No auto-update, telemetry or other traffic the listing does not need.
export DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
export PATH="$BIN_DIR:$PATH"
CLAUDE="$SCRATCH/npm/node_modules/.bin/claude"
CODEX="$SCRATCH/npm/node_modules/.bin/codex"
GEMINI="$SCRATCH/npm/node_modules/.bin/gemini"

installed() { [[ -x "$1" ]] && "$1" --version 2>/dev/null | grep -qF "$2"; }
if ! installed "$CLAUDE" "$CLAUDE_CODE_VERSION" || ! installed "$CODEX" "$CODEX_VERSION" ||
    ! installed "$GEMINI" "$GEMINI_VERSION"; then
    echo "--- npm install @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION @openai/codex@$CODEX_VERSION @google/gemini-cli@$GEMINI_VERSION into $SCRATCH/npm"
    (cd "$SCRATCH/npm" && npm install --no-save --no-package-lock --no-audit --no-fund \
        --loglevel=error --no-update-notifier "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" \
        "@openai/codex@$CODEX_VERSION" "@google/gemini-cli@$GEMINI_VERSION" >/dev/null)
fi
echo "claude: $("$CLAUDE" --version)"
echo "codex:  $("$CODEX" --version 2>/dev/null)"
echo "gemini: $("$GEMINI" --version)"
echo "ctxloop on PATH: $(command -v ctxloop) ($(ctxloop --version))"

cd "$SCRATCH/project"
cp -r "$REPO/tests/fixtures/authsvc/." .

echo "--- claude mcp add ctxloop -- ctxloop serve --root ."
"$CLAUDE" mcp add ctxloop -- ctxloop serve --root .
list=$("$CLAUDE" mcp list 2>&1) || fail "claude mcp list exited non-zero: $list"
echo "$list"
grep -E '^ctxloop: ctxloop serve --root \. - .*Connected' <<<"$list" >/dev/null ||
    fail "claude mcp list does not report ctxloop connected"

echo "--- codex mcp add ctxloop -- ctxloop serve --root ."
"$CODEX" mcp add ctxloop -- ctxloop serve --root . 2>&1 | grep -v '^WARNING: proceeding' || true
"$CODEX" mcp list 2>/dev/null
"$CODEX" mcp list --json 2>/dev/null | python3 -c '
import json, sys
servers = {s["name"]: s for s in json.load(sys.stdin)}
s = servers.get("ctxloop")
ok = (s is not None and s["enabled"] and s["transport"]["command"] == "ctxloop"
      and s["transport"]["args"] == ["serve", "--root", "."])
sys.exit(0 if ok else 1)' || fail "codex mcp list does not list ctxloop enabled with serve --root ."

echo "--- gemini mcp add ctxloop ctxloop serve --root ."
"$GEMINI" mcp add ctxloop ctxloop serve --root .
# Gemini CLI disables every MCP server in a folder the user has not trusted
# (asked interactively); trustedFolders.json is where that answer is kept.
mkdir -p "$HOME/.gemini"
printf '{"%s": "TRUST_FOLDER"}\n' "$PWD" >"$HOME/.gemini/trustedFolders.json"
list=$("$GEMINI" mcp list 2>&1) || fail "gemini mcp list exited non-zero: $list"
echo "$list"
grep -E 'ctxloop: ctxloop serve --root \. \(stdio\) - Connected' <<<"$list" >/dev/null ||
    fail "gemini mcp list does not report ctxloop connected"

echo "--- claude plugin validate --strict (the repository as a plugin and a marketplace)"
"$CLAUDE" plugin validate --strict "$REPO" || fail "claude plugin validate --strict rejects the plugin"
"$CLAUDE" plugin validate --strict "$REPO/.claude-plugin/marketplace.json" ||
    fail "claude plugin validate --strict rejects the marketplace"

echo "--- claude plugin marketplace add <repo>; claude plugin install ctxloop@ctxloop"
# Claude Code hides a plugin's server that runs the same command as a server
# added by hand, so the one added above goes first.
"$CLAUDE" mcp remove ctxloop >/dev/null
"$CLAUDE" plugin marketplace add "$REPO" || fail "claude plugin marketplace add rejects the repository"
"$CLAUDE" plugin install ctxloop@ctxloop || fail "claude plugin install ctxloop@ctxloop failed"
list=$("$CLAUDE" mcp list 2>&1) || fail "claude mcp list exited non-zero: $list"
echo "$list"
grep -E '^plugin:ctxloop:ctxloop: ctxloop serve --root .* - .*Connected' <<<"$list" >/dev/null ||
    fail "claude mcp list does not report the plugin's ctxloop server connected"
echo "ok: Claude Code, Codex and Gemini CLI register ctxloop, and the plugin installs and connects"
