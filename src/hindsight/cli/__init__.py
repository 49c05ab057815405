"""Command-line interface (thin adapter over :mod:`hindsight.app`)."""
