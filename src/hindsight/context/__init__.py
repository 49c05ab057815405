"""Task context: the files and symbols a task most likely needs changed (issue 12, item 7)."""
