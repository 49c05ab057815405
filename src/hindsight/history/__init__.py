"""History (L3): git commits down to the symbol, why/impact/hotspots, the live edit
trace (record_edit, the file watcher) and the git hooks that keep a bank current."""
