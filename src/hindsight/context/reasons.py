"""The reasons task context gives for a file, and the symbols it ranks inside the best files.

A symbol of one of the best :data:`SYMBOL_FILES` files scores ``file score × (named +
changed + match)``: ``named`` 1 when the task names it, ``changed`` the share of the
similar past commits (those that voted for its file) that changed it, ``match`` the
IDF-weighted share of the task's terms in its name, signature and the first line of its
doc. Only symbols with some evidence are listed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hindsight.context.fusion import Weights
from hindsight.memory import segment
from hindsight.memory.lexical import idf
from hindsight.store.base import CodeStore, HistoryStore

if TYPE_CHECKING:
    from hindsight.context.service import Evidence, Ranked

MAX_TERMS_SHOWN = 6
MAX_COMMITS_SHOWN = 2
SIMILAR_FOR_SYMBOLS = 10  # similar commits whose symbol changes rank symbols
SYMBOL_FILES = 5  # the best files whose symbols are ranked


def matched_terms(ev: Evidence, f: int) -> list[str]:
    """The task's terms found in file ``f``, rarest first."""
    c = ev.corpus
    got = []
    for t in ev.terms:
        post = c.fpost.get(t)
        if post and any(post[i] == f for i in range(0, len(post), 4)):
            got.append((len(post), t))
    return [t for _n, t in sorted(got)]


def _shown(term: str, word: str) -> str:
    """The task's word a matched term came from, or the term and its word when the term is
    only a piece of it (``7q`` split into ``7`` and ``q``: fresh-user run of session 35)."""
    w = word.lower()
    return word if w == term or (w.startswith(term) and len(w) - len(term) <= 3 and
                                 w.isalpha()) else f"{term} (of {word})"


def file_reasons(ev: Evidence, f: int, first: dict[int, float], w: Weights) -> list[str]:
    """Why file ``f`` ranks: each channel that found it, in words."""
    from hindsight.context.service import commit_date

    c = ev.corpus
    out: list[str] = []
    for word in ev.named_files.get(f, []):
        out.append(f"named in the task: `{word}`")
    if ev.literal.get(f):
        out.append("holds what the task quotes: " + ", ".join(
            f"`{x}`" for x in ev.literal[f][:MAX_TERMS_SHOWN]))
    out += [f"call graph: {r}" for r in ev.graph.get(f, [])[:3]]
    if ev.scores.get("code", {}).get(f):
        terms = matched_terms(ev, f)
        if terms:
            out.append("matching code: " + ", ".join(
                dict.fromkeys(_shown(t, ev.words.get(t, t)) for t in terms[:MAX_TERMS_SHOWN])))
    shown = 0
    for j, _s in ev.similar:
        moved = w.follow > 0 and f in c.cmoved[j][::2]
        if (f in c.cfiles[j] or moved) and shown < MAX_COMMITS_SHOWN:
            sha, ts, subject = c.commits[j]
            did = "changed it" if f in c.cfiles[j] else "changed code that is here now"
            out.append(f"similar past commit {sha[:10]} ({commit_date(ts)}) \"{subject}\" "
                       + did)
            shown += 1
    out += ev.memories.get(f, [])[:3]
    out += ev.attempts.get(f, [])[:3]
    out += cochange_reasons(ev, f, first, w)
    last = max(1, round(w.current_half_life))
    if ev.scores.get("current") and any(j >= len(c.commits) - last
                                        for j in c.commits_touching(f)):
        out.append("changed in the last commit (work in progress)" if last == 1 else
                   f"changed in the last {last} commits (work in progress)")
    recent = [j for j in c.commits_touching(f) if j >= len(c.commits) - w.half_life]
    if recent:
        out.append(f"changed in {len(recent)} of the last {min(len(c.commits), int(w.half_life))}"
                   " commits")
    return out


def cochange_reasons(ev: Evidence, f: int, first: dict[int, float], w: Weights,
                     ) -> list[str]:
    """``changed together with <path> in n of m commits`` for the best first-stage files
    that share commits with ``f``."""
    from hindsight.context.fusion import best

    c = ev.corpus
    out = []
    for g, _s in best(first, w.seeds, c.files):
        if g == f:
            continue
        mine = c.commits_touching(g)
        both = sum(1 for j in mine if f in c.cfiles[j])
        if both:
            out.append(f"changed together with {c.files[g]} in {both} of its {len(mine)} "
                       "commits")
    return out[:2]


def symbols_of(code: CodeStore, hs: HistoryStore, ev: Evidence,
               top: list[tuple[int, float]], k: int, per_file: int) -> list[Ranked]:
    """Up to ``k`` symbols of the ``top`` files, best first (module doc)."""
    from hindsight.context.service import Ranked

    c = ev.corpus
    shas = [c.commits[j][0] for j, _s in ev.similar[:SIMILAR_FOR_SYMBOLS]]
    changed = {(p, loc): n for p, loc, _k, n in hs.cochanged_symbols(shas)} if shas else {}
    named = {(p, loc): word for p, loc, word in ev.named_symbols}
    n = len(c.files)
    weight = {t: idf(n, len(c.fpost.get(t, ())) // 4) for t in ev.terms}
    total = sum(weight.values()) or 1.0
    out: list[Ranked] = []
    for f, fscore in top[:SYMBOL_FILES]:
        path = c.files[f]
        mine: list[Ranked] = []
        for s in code.file_symbols(path):
            key = (s.path, s.local)
            doc = s.doc.strip().split("\n", 1)[0][:200]  # its summary line
            words = set(segment.terms(f"{s.name} {s.signature[:200]} {doc}", words=False))
            match = sum(weight[t] for t in ev.terms if t in words) / total
            share = changed.get(key, 0) / max(1, len(shas))
            hit = 1.0 if key in named else 0.0
            if not (hit or share or match >= 0.1):
                continue
            why = []
            if hit:
                why.append(f"named in the task: `{named[key]}`")
            if share:
                why.append(f"changed by {changed[key]} of the {len(shas)} most similar past "
                           "commits")
            if match >= 0.1:
                hits = [ev.words.get(t, t) for t in ev.terms if t in words][:MAX_TERMS_SHOWN]
                why.append("matching name or doc: " + ", ".join(dict.fromkeys(hits)))
            mine.append(Ranked(s.qname, s.kind, fscore * (hit + share + match), why,
                               {"named": hit, "commits": share, "match": match},
                               s.start_line))
        mine.sort(key=lambda r: (-r.score, r.line))
        out += mine[:per_file]
    out.sort(key=lambda r: (-r.score, r.target))
    return out[:k]
