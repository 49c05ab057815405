"""The channels of task context: each scores the files of the corpus for a task's terms.

- ``code``: BM25F over the files' three fields (Robertson, Zaragoza & Taylor, "Simple BM25
  Extension to Multiple Weighted Fields", CIKM 2004): per field a length-normalised term
  frequency, weighted and summed before one saturation::

      tf~(t, f) = Σ_field w_field · tf_field(t, f) / (1 − b + b · len_field(f) / avglen_field)
      code(f)   = Σ_{t ∈ Q} idf(t) · tf~ / (k1 + tf~)

  with the idf of :func:`hindsight.memory.lexical.idf` over files.
- ``commits``: the past commits whose messages are most like the task (BM25 over messages,
  the same k1 and b), each voting for the files it changed with its score divided by the
  number of files it changed — the "similar bug reports" score of BugLocator (Zhou, Zhang
  & Lo, ICSE 2012).
- ``recent``: how often and how lately each file changed, Σ over the commits that changed
  it of 2^(−age / half-life), age counted in commits, not days (projects differ in pace);
  the version-history prior of Sisman & Kak (MSR 2012).

Every function returns ``{file id: score}`` (only files scoring above 0) and never raises.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from hindsight.context.corpus import Corpus, recency
from hindsight.memory.lexical import idf

K1 = 1.2  # Robertson & Zaragoza 2009; as the memory engine (memory/lexical.py)


@dataclass(frozen=True)
class FieldWeights:
    """BM25F weights and length normalisation (b) of the file fields (chosen with the
    fusion weights: :mod:`hindsight.context.fusion`)."""

    path: float = 4.0
    symbols: float = 1.0
    text: float = 1.0
    b_path: float = 0.3
    b_symbols: float = 0.5
    b_text: float = 0.75


def code(c: Corpus, terms: list[str], fw: FieldWeights) -> dict[int, float]:
    """BM25F of each file for the query ``terms`` (distinct, analysed)."""
    n = len(c.files)
    if not n or not terms:
        return {}
    avg = [max(1e-9, sum(x[k] for x in c.flen) / n) for k in range(3)]
    w = (fw.path, fw.symbols, fw.text)
    b = (fw.b_path, fw.b_symbols, fw.b_text)
    norm = [[1.0 - b[k] + b[k] * x[k] / avg[k] for k in range(3)] for x in c.flen]
    acc: dict[int, float] = {}
    for t in terms:
        post = c.fpost.get(t)
        if not post:
            continue
        weight = idf(n, len(post) // 4)
        for i in range(0, len(post), 4):
            f = post[i]
            nf = norm[f]
            tf = (w[0] * post[i + 1] / nf[0] + w[1] * post[i + 2] / nf[1]
                  + w[2] * post[i + 3] / nf[2])
            acc[f] = acc.get(f, 0.0) + weight * tf / (K1 + tf)
    return {f: s for f, s in acc.items() if s > 0}


def similar_commits(c: Corpus, terms: list[str], limit: int, b: float = 0.75
                    ) -> list[tuple[int, float]]:
    """The ``limit`` past commits whose messages score best for ``terms`` (BM25), as
    ``(commit index, score)`` best first (ties: the newer first)."""
    n = len(c.commits)
    if not n or not terms:
        return []
    avg = max(1e-9, sum(c.clen) / n)
    acc: dict[int, float] = {}
    for t in terms:
        post = c.cpost.get(t)
        if not post:
            continue
        weight = idf(n, len(post) // 2)
        for i in range(0, len(post), 2):
            j, tf = post[i], post[i + 1]
            acc[j] = acc.get(j, 0.0) + weight * tf * (K1 + 1) / (
                tf + K1 * (1 - b + b * c.clen[j] / avg))
    return [(j, s) for s, j in heapq.nlargest(limit, ((s, j) for j, s in acc.items()
                                                       if s > 0))]


def continuing(c: Corpus, hits: list[tuple[int, float]], boost: float, half_life: float
               ) -> list[tuple[int, float]]:
    """The similar commits ``hits`` with the newest weighted up: each score times
    1 + ``boost`` · 2^(−age / ``half_life``), age as in :func:`recent`, best first again.
    A task much like the commits just made most likely continues them (a change made in
    a series of commits: fd's "cleanup", "fix format" after "apply strict filter"); unlike
    a recency prior, this weighs only commits the task's words already chose (issue 12,
    item 7: on all four development histories it helped or changed nothing)."""
    if boost <= 0 or half_life <= 0 or not hits:
        return hits
    n = len(c.commits)
    out = [(j, s * (1.0 + boost * 2.0 ** (-(n - 1 - j) / half_life))) for j, s in hits]
    return sorted(out, key=lambda x: (-x[1], -x[0]))


def commit_votes(c: Corpus, hits: list[tuple[int, float]], size_power: float = 1.0,
                 half_life: float = 0.0, alive_power: float = 1.0, hub_power: float = 0.0,
                 follow: float = 0.0) -> dict[int, float]:
    """Each similar commit's score shared among the files it changed: score / n^power,
    n the files it changed in all (existing or not); with ``half_life`` (commits; 0: none)
    also times 2^(−age / half_life), age as in :func:`recent`: an old commit speaks of an
    older layout of the code; and times the share of the symbols it changed in the file
    that are still there (to ``alive_power``): code that moved away took the reason to
    change the file with it. With ``hub_power`` each file's votes are divided by the
    number of commits that changed it to that power: a lift over the file's base rate, as
    inverse document frequency is for terms (Sparck Jones 1972), so that a hub such as
    ``main.rs``, changed by most commits, does not win every vague task (issue 12, fd).
    With ``follow`` > 0 the vote also goes, times ``follow``, to where the code it changed
    lives now (``c.cmoved``: the share of its symbols defined elsewhere now, or the file
    that replaced one it changed), to the same ``alive_power``: votes follow the code."""
    out: dict[int, float] = {}
    n = len(c.commits)
    for j, s in hits:
        share = s / max(1, c.cn[j]) ** size_power
        if half_life > 0:
            share *= 2.0 ** (-(n - 1 - j) / half_life)
        for f, alive in zip(c.cfiles[j], c.clive[j], strict=True):
            keep = alive ** alive_power if alive_power > 0 else 1.0
            if keep > 0:
                out[f] = out.get(f, 0.0) + share * keep
        if follow > 0:
            moved = c.cmoved[j]
            for i in range(0, len(moved), 2):
                f, m = int(moved[i]), moved[i + 1]
                out[f] = out.get(f, 0.0) + share * follow * m ** alive_power
    if hub_power > 0:
        out = {f: v / max(1, len(c.commits_touching(f))) ** hub_power
               for f, v in out.items()}
    return out


def recent(c: Corpus, half_life: float) -> dict[int, float]:
    """Σ 2^(−age / ``half_life``) over the commits that changed each file; age: how many
    commits came after (the newest commit has age 0). Computed when the corpus was built
    for the default half-life (:func:`hindsight.context.corpus.recency`)."""
    if c.prior is not None and c.prior[0] == half_life:
        return c.prior[1]
    return recency(c, half_life)


def specificity(c: Corpus, terms: list[str]) -> float:
    """How much a task says, in rare words: Σ over its distinct ``terms`` of their idf
    over the commit messages (:func:`hindsight.memory.lexical.idf`) divided by the idf of
    a word no message holds, so that a history's length does not change the scale. Words
    every commit uses ("fix", "format", "warning") add little, a word no commit used 1;
    0 without history."""
    n = len(c.commits)
    if not n:
        return 0.0
    top = idf(n, 0)
    return sum(idf(n, len(c.cpost.get(t) or ()) // 2) for t in dict.fromkeys(terms)) / top


def cochange(c: Corpus, seeds: dict[int, float], top: int = 10,
             max_files: int = 30) -> dict[int, float]:
    """Files that changed together with the ``top`` best ``seeds`` (file → score): Σ over
    seeds g of score(g) · P(f | g), P(f | g) = commits changing both / commits changing g,
    over commits of at most ``max_files`` files (larger ones are mechanical: Zimmermann et
    al., ICSE 2004)."""
    out: dict[int, float] = {}
    for g, sg in heapq.nlargest(top, seeds.items(), key=lambda x: (x[1], -x[0])):
        touching = [j for j in c.commits_touching(g) if c.cn[j] <= max_files]
        if not touching:
            continue
        share = sg / len(touching)
        for j in touching:
            for f in c.cfiles[j]:
                if f != g:
                    out[f] = out.get(f, 0.0) + share
    return out
