"""The web control plane, ``hindsight ui``: an adapter like ``cli`` and ``mcp`` that shows
a bank (banks, memories, the recall debugger, code, hot spots, knowledge pages) through
the bank's services. Nothing is imported or started here: :mod:`hindsight.ui.command`
holds the click command, :func:`hindsight.ui.web.build_app` makes the application."""
