#!/usr/bin/env bash
# Quick start, command 1: install hindsight into .venv, index this checkout and the Python
# standard library, then show symbol and call-graph queries on both, history, memory, and
# the agent integration (Claude Code hooks, MCP server) on this checkout; memory and agents
# in a throwaway HINDSIGHT_HOME.
source "$(dirname "$0")/_venv.sh" "."
set -x
hindsight index
hindsight symbols open_bank
hindsight callers resolve_file --depth 2
hindsight trace --start src/hindsight/codeindex/indexer.py::index --depth 1 | head -40
STDLIB=$(python -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
hindsight index --repo-root "$STDLIB" --exclude site-packages/ --exclude __pycache__/
hindsight status --repo-root "$STDLIB"
hindsight symbols JSONDecoder --repo-root "$STDLIB"
hindsight callers json/decoder.py::JSONDecoder.raw_decode --depth 2 --repo-root "$STDLIB"
hindsight trace --start json/__init__.py::loads --depth 2 --repo-root "$STDLIB" | head -60
# history (L3): this checkout's git history, per symbol; all of it (a first ingest reads the
# newest 300 commits, which may not reach the symbols shown below)
hindsight ingest --all
hindsight history src/hindsight/codeindex/query.py::callers
hindsight why src/hindsight/codeindex/indexer.py:140
hindsight impact src/hindsight/codeindex/query.py::resolve_one --depth 2
hindsight hotspots --limit 5
hindsight status
# memory (L4) and agents (L5) run in a throwaway home, removed at the end (on failure too):
# the memories retained below, and the fixture session's ("always use pathlib", ...), must
# not brief your next real session in this checkout. The bank there is indexed afresh; no
# background seeding, since nothing may outlive the home.
DEMO_HOME="$(mktemp -d)"
CLAUDE_CONFIG_DIR="$(mktemp -d)"  # Claude Code's config dir: your own ~/.claude is not touched
trap 'rm -rf "$DEMO_HOME" "$CLAUDE_CONFIG_DIR"' EXIT
export HINDSIGHT_HOME="$DEMO_HOME" CLAUDE_CONFIG_DIR HINDSIGHT_HOOK_SYNC=1 HINDSIGHT_SEED=0
hindsight index
# experience memory (L4): retain, recall, reflect on this checkout's (throwaway) bank
hindsight retain "We decided to set busy_timeout before WAL so hooks never see 'database is locked'" --symbol src/hindsight/store/sqlite/db.py::connect
hindsight retain "Lesson: parsing blobs in-process hung on a TSX file; always parse in guarded workers" --kind lesson --outcome failure
hindsight recall "database is locked" --explain
hindsight reflect "how do we parse safely?"
# agents (L5): install into the throwaway Claude Code config dir (the entries pin
# HINDSIGHT_HOME to the throwaway home), then run the hooks Claude Code would run
hindsight install claude-code
hindsight config show --harness claude-code
echo '{"session_id":"demo-1","cwd":"'"$PWD"'","source":"startup"}' | hindsight hook session-start
echo '{"session_id":"demo-1","cwd":"'"$PWD"'","transcript_path":"'"$PWD"'/tests/fixtures/transcripts/claude_session.jsonl"}' | hindsight hook stop
echo '{"session_id":"demo-2","cwd":"'"$PWD"'","source":"startup"}' | hindsight hook session-start | python -c 'import json,sys; print(json.load(sys.stdin)["hookSpecificOutput"]["additionalContext"])'
echo '{"session_id":"demo-3","cwd":"'"$PWD"'","prompt":"why was busy_timeout set before WAL?"}' | hindsight hook user-prompt-submit
tail -n 2 "${HINDSIGHT_DIAG_FILE:-$HINDSIGHT_HOME/logs/hooks.jsonl}" | cut -c1-300
python scripts/mcp_demo.py
hindsight uninstall claude-code
