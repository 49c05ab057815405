"""Which commits are fixes (``hotspots`` counts them twice).

A commit is a fix when its **subject** (first line)

* begins with a fix word: ``fix``, ``fixes``, ``fixed``, ``fixing``, ``bugfix``, ``hotfix``
  — also after ``[…]`` tags and one ``prefix:`` or ``prefix(scope):``, so Conventional
  Commits (``fix:``, ``fix(parser)!:``; conventionalcommits.org 1.0.0), the area prefixes
  of git's and Linux's own logs (``parser: fix …``) and plain imperative subjects
  (``Fix crash on empty input``) count;
* is a revert: ``Revert "…"`` (what ``git revert`` writes), ``revert:`` or ``Revert
  <sha>`` (not "Revert to older wording");
* names a bug: the word ``bug``, ``bugs`` or ``bugfix``;

or its **message** says which issue it fixes: ``fix``/``fixes``/``fixed`` followed by
``#N``, ``owner/repo#N`` or ``gh-N`` (GitHub's closing keywords of the fix family), or a
``Fixes:`` trailer (the Linux kernel's convention for naming the commit a fix repairs).

Not fixes: "fix" inside a word (``prefix``, ``fixture``, ``Fix-width``) or further into
the subject
(``Add a test for the fix``), ``closes #N``/``resolves #N`` (features close issues too),
"regression" or "crash" alone. :data:`RULE` names this definition; a bank whose commits
were classified under another one is classified again (:func:`reclassify`).
"""

from __future__ import annotations

import re

from hindsight.store.base import HistoryStore

RULE = "3"  # 1: any fix/bug/revert/regression/crash/broken word in the subject; 2: any
# subject beginning "revert", and "Fix-width" counted
_LEAD = r"^\s*(?:\[[^\]]*\]\s*)*(?:[\w./`-]+(?:\([^)]*\))?!?:\s*)?"
_SUBJECT = re.compile(_LEAD + r"(?:fix(?:es|ed|ing)?|bugfix|hotfix)\b(?!-)"
                      r"|^\s*revert(?::|\s+[\"']|\s+(?:commit\s+)?[0-9a-f]{7,40}\b)"
                      r"|\bbug(?:s|fix)?\b", re.I)
_ISSUE = re.compile(r"\bfix(?:es|ed)?:?\s+(?:[\w.-]+/[\w.-]+)?(?:#|gh-)\d+", re.I)
_TRAILER = re.compile(r"^Fixes:[ \t]*\S", re.M)


def is_fix(message: str) -> bool:
    """True when the commit ``message`` is a fix by the rule above."""
    subject = message.split("\n", 1)[0]
    return bool(_SUBJECT.search(subject) or _ISSUE.search(message)
                or _TRAILER.search(message))


def reclassify(store: HistoryStore) -> int:
    """Classify every stored commit again when the bank's ``history_fix_rule`` is not
    :data:`RULE`; returns how many commits changed (0 when already current)."""
    if store.get_meta("history_fix_rule") == RULE:
        return 0
    changed = store.set_fixes(is_fix)
    store.set_meta({"history_fix_rule": RULE})
    return changed
