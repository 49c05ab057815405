"""Agent integrations: Claude Code and Codex hooks, transcripts, install."""
