# Sourced by the scripts: create .venv (once) and install hindsight into it.
# $1: pip extras spec, e.g. "." or ".[dev]".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e "$1"
export PATH="$PWD/.venv/bin:$PATH"
