"""How the channels of task context are fused into one ranking of files.

Each channel's scores are divided by that channel's best score for the task (so each lies
in [0, 1] and a channel that found nothing adds nothing), then::

    first(f)  = Σ_c w_c · ŝ_c(f)                      c ∈ code, commits, named, graph,
                                                         memories, attempts, literal
    final(f)  = first(f) + w_recent · ŝ_recent(f) + w_cochange · ĉ(f) + g · ŝ_current(f)
    g         = w_current / (1 + S / current_spec)

where ĉ is the co-change of each file with the best files of ``first``
(:func:`hindsight.context.channels.cochange`), also divided by its maximum; ``current``
is the recency prior with a half-life of ``current_half_life`` commits — the work in
progress — and ``S`` how much the task says (:func:`hindsight.context.channels.
specificity`): a task that names little ("formatting", "fix a new clippy warning") is
most likely about the code just changed, a detailed one less so. Like the other priors it
only adds to files that a task-dependent channel found. The gate is a query
clarity weighting in the spirit of Cronen-Townsend, Zhou & Croft ("Predicting query
performance", SIGIR 2002), with the idf sum as the clarity estimate. A weighted sum
of normalised channel scores is how BugLocator (Zhou, Zhang & Lo, ICSE 2012) fuses its
similar-report score with its text score, and AmaLgam (Wang & Lo, ICPC 2014) adds version
history the same way. The weights (:data:`WEIGHTS`) were chosen by a grid search of MRR on
the histories of two public projects (click and cobra) and checked on two others (fd and
express), which were not used to choose them; the later changes (``hub_power``,
``follow``, ``wip_boost``, a mild ``current``) were judged on all four: README, "Task
context".
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, replace

CHANNELS = ("code", "commits", "named", "graph", "memories", "attempts", "literal")


@dataclass(frozen=True)
class Weights:
    """The fusion weights (module doc) and the channel parameters tuned with them:
    ``literal_files`` best files (by the other channels) searched for the task's literal
    strings, ``similar`` past commits that vote, ``size_power`` of their vote's division by
    the files they changed, ``hub_power`` of a file's votes' division by the commits that
    changed it and ``follow``, the weight of the votes that go where the code a commit
    changed lives now (:func:`hindsight.context.channels.commit_votes`); ``wip_boost``
    and ``wip_half_life`` (commits) of the weight the newest similar commits gain
    (:func:`hindsight.context.channels.continuing`); ``half_life`` (commits)
    of the recency prior, ``seeds`` files whose co-changes count; ``current``, ``current_half_life`` (commits) and
    ``current_spec`` (rare words, :func:`hindsight.context.channels.specificity`) of the
    work-in-progress prior and its gate."""

    code: float = 1.0
    commits: float = 0.8
    named: float = 1.0
    graph: float = 0.1
    memories: float = 0.3
    attempts: float = 0.3
    literal: float = 0.5
    literal_files: int = 20
    recent: float = 0.05
    cochange: float = 0.0
    similar: int = 10
    size_power: float = 0.5
    vote_half_life: float = 0.0
    alive_power: float = 0.5
    hub_power: float = 0.5
    follow: float = 0.5
    wip_boost: float = 3.0
    wip_half_life: float = 2.0
    half_life: float = 50.0
    seeds: int = 3
    current: float = 1.0  # mild: no cost on click, fd, express; cobra -0.005 R@1 (README)
    current_half_life: float = 1.0
    current_spec: float = 0.5

    def but(self, **kw: float) -> Weights:
        """A copy with some fields changed (the ablation sets one to 0)."""
        return replace(self, **kw)  # type: ignore[arg-type]


WEIGHTS = Weights()


def normalised(scores: dict[int, float]) -> dict[int, float]:
    """``scores`` divided by their maximum (``{}`` when empty or all 0)."""
    top = max(scores.values(), default=0.0)
    return {f: s / top for f, s in scores.items()} if top > 0 else {}


def first_stage(channels: dict[str, dict[int, float]], w: Weights) -> dict[int, float]:
    """Σ_c w_c · ŝ_c over :data:`CHANNELS`."""
    out: dict[int, float] = {}
    for name in CHANNELS:
        wc = float(getattr(w, name))
        if not wc:
            continue
        for f, s in normalised(channels.get(name, {})).items():
            out[f] = out.get(f, 0.0) + wc * s
    return out


def final(first: dict[int, float], recent: dict[int, float], cochanged: dict[int, float],
          w: Weights, current: dict[int, float] | None = None, spec: float = 0.0
          ) -> dict[int, float]:
    """``first`` plus the recency prior, the co-change term and the work-in-progress
    prior ``current`` gated by the task's specificity ``spec`` (module doc). The recency
    priors only add to files that a task-dependent channel found: a prior alone never
    ranks a file."""
    r, c = normalised(recent), normalised(cochanged) if w.cochange else {}
    g = gate(w, spec)
    now = normalised(current) if g > 0 and current else {}
    out = dict(first)
    for f in set(first) | set(c):
        out[f] = out.get(f, 0.0) + w.recent * r.get(f, 0.0) + w.cochange * c.get(f, 0.0) \
            + g * now.get(f, 0.0)
    return out


def gate(w: Weights, spec: float) -> float:
    """The weight of the work-in-progress prior for a task of specificity ``spec``:
    ``w.current / (1 + spec / w.current_spec)``."""
    if not w.current:
        return 0.0
    return w.current / (1.0 + max(0.0, spec) / max(1e-9, w.current_spec))


def best(scores: dict[int, float], k: int, name: list[str]) -> list[tuple[int, float]]:
    """The ``k`` best ``(id, score)``, ties by ``name[id]``."""
    return heapq.nsmallest(k, scores.items(), key=lambda x: (-x[1], name[x[0]]))
