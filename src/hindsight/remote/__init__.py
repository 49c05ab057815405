"""Client mode: the bank's memories live on a ``hindsight serve`` (issue 11, item 6)."""
