"""Knowledge pages: a read-only survey of the repository, kept current.

Four pages (:data:`hindsight.pages.records.NAMES`): ``architecture`` (top-level parts and
what each does, the module dependency graph between them, entry points, exported APIs),
``conventions`` (convention and decision memories, the repository's own tool
configuration, the commit style seen in history), ``hotspots`` (churn, fix commits, stale
memories, failed attempts) and ``in-flight`` (recent branches, commit clusters, unresolved
failures). Every claim cites its evidence; the text is deterministic unless an LLM rewrite
keeps every citation. :class:`hindsight.pages.service.PageService` (``bank.pages``) builds,
stores (with versions, through :class:`hindsight.store.base.PageStore`) and refreshes them.
"""
