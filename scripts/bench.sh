#!/usr/bin/env bash
# Install the baseline tools (universal-ctags) and run every bench script; results land in
# bench/results/*.json.
source "$(dirname "$0")/_venv.sh" "."
if ! command -v ctags >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq universal-ctags) >/dev/null 2>&1 || \
    echo "bench: could not install universal-ctags; the ctags baseline will be skipped" >&2
fi
python bench/index.py "$@"
python bench/history.py
python bench/recall_locomo.py
python bench/recall_scale.py
python bench/hooks.py
python bench/ui.py
python bench/pages.py
python bench/report.py
