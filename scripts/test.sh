#!/usr/bin/env bash
# Quick start, command 2: install hindsight with its dev tools into .venv and run the whole
# suite: ruff, mypy, pytest (slow tests included). The control plane's browser tests need
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
pytest "$@"
