#!/usr/bin/env bash
# Quick start, command 2: install hindsight with its dev tools into .venv and run the whole
# suite: ruff, mypy, the opencode/Kilo plugin's tests (Node's test runner, tests/js; skipped
# with a message when node is not installed), pytest (slow tests included). The control plane's browser tests need
# Debian's chromium at /usr/bin/chromium: installed here when run as root (CI); otherwise
# those tests fail (they never skip) until it is installed.
source "$(dirname "$0")/_venv.sh" ".[dev]"
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
      >/dev/null || { echo "test: could not install chromium (apt-get install -y chromium)" >&2; exit 1; }
  else
    echo "test: /usr/bin/chromium is missing: the UI browser tests will fail; install it with" \
      "sudo apt-get install -y chromium" >&2
  fi
fi
ruff check src tests bench
mypy
if command -v node >/dev/null 2>&1; then
  HINDSIGHT_TEST_PYTHON="$PWD/.venv/bin/python" node --test tests/js/
else
  echo "test: node is not installed: the opencode/Kilo plugin tests (node --test tests/js)" \
    "are skipped; install Node.js 18 or later to run them" >&2
fi
pytest "$@"
