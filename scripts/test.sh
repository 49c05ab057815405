#!/usr/bin/env bash
# Quick start, command 2: install hindsight with its dev tools into .venv and run the whole
# suite: ruff, mypy, pytest (slow tests included).
source "$(dirname "$0")/_venv.sh" ".[dev]"
ruff check src tests bench
mypy
pytest "$@"
