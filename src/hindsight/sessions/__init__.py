"""Agent sessions, harness-agnostic: transcript readers (Claude Code, Codex), write-back,
experience extraction, seeding a cold bank, and the session briefing with its relevance gate."""
