"""Code knowledge: file selection, parsing, symbols (L1) and call graph (L2)."""
