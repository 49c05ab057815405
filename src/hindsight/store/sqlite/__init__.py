"""SQLite backend: one database file per bank."""
