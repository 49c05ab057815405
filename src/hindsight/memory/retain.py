"""retain: redact, structure, fingerprint, embed and store memories.

Order of work for each item: secrets are redacted first (:mod:`.redact`), then the text is
structured (:mod:`.extract`), fingerprinted (xxh3-128 of the casefolded, whitespace-collapsed
text with its kind and given anchors: an exact duplicate never makes a second row — the
fingerprint column is UNIQUE, which also holds under concurrent writers), written (rows,
lexical index and anchors, the implicit ones found in the text included, in one transaction, so
the text is searchable at once) and embedded. A single retain also looks for a near
duplicate first: cosine ≥ ``near_dup`` (default 0.85) with the same given anchors merges into the existing memory (its access count is bumped) instead of adding
one. Batches skip that check (they are imports) and embed after writing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import xxhash

from hindsight.errors import ConfigError, ProviderError
from hindsight.memory import extract
from hindsight.memory.clock import iso, now_ts
from hindsight.memory.lexical import document
from hindsight.models import MemoryItem as Item
from hindsight.models import Retained
from hindsight.redact import clean, redact
from hindsight.store.base import MemoryStore

NEAR_DUP = 0.85
SOURCES = ("conversation", "commit", "tool", "human", "api", "code_comment", "import")
VISIBILITY = ("private", "team", "public")
_WS = re.compile(r"\s+")



def check_item(item: Item) -> None:
    """Raises ConfigError for a field of the wrong type or out of range (JSONL input)."""
    item.check()


def fingerprint(text: str, kind: str, anchors: list[tuple[str, str, str]],
                scope: str = "") -> str:
    """xxh3-128 of the casefolded, whitespace-collapsed text with its kind, anchors and
    scope (``private:<owner>`` for private memories: two agents' private notes never
    collapse into one)."""
    norm = _WS.sub(" ", text.casefold()).strip()
    anc = "|".join(sorted(f"{p}::{s}" for p, s, _h in anchors))
    return xxhash.xxh3_128_hexdigest(f"{kind}\0{norm}\0{anc}\0{scope}".encode(
        "utf-8", "surrogatepass"))


def fingerprint_scope(visibility: str, owner: str, team: str) -> str:
    """The fingerprint's scope: ``private:<owner>`` for a private memory, ``team:<team>``
    for a team memory of a team (two teams' notes never collapse into one), else ``""``
    (what memories written before teams existed have)."""
    if visibility == "private":
        return f"private:{owner}"
    return f"team:{team}" if visibility == "team" and team else ""


def prepare(item: Item, now: float, llm: Any = None) -> tuple[dict[str, Any], list[str]]:
    """The row for ``item`` (redacted, structured) and the secret kinds redacted. Raises
    ConfigError for an empty text or a bad kind/outcome/source/visibility/date."""
    from datetime import datetime

    check_item(item)
    text, found = redact(item.text)
    if not text.strip():
        raise ConfigError("a memory needs some text", option="text")
    ctx, found_ctx = redact(item.context)
    llm_unit, why = (None, "no llm configured")
    if llm is not None and item.source != "conversation":
        from hindsight.memory.llm import structure

        llm_unit, why = structure(llm, text, llm.timeout)  # sees only the redacted text
    if llm_unit is not None:
        item = Item(**{**item.__dict__, "kind": item.kind or llm_unit["kind"],
                       "outcome": item.outcome or llm_unit["outcome"],
                       "tags": [*item.tags, *llm_unit["tags"]]})
    kind = item.kind or ("conversation" if item.source == "conversation" else
                         extract.classify(text))
    if kind not in extract.KINDS:
        raise ConfigError(f"kind {kind!r}: one of {', '.join(extract.KINDS)}")
    if item.source not in SOURCES:
        raise ConfigError(f"source {item.source!r}: one of {', '.join(SOURCES)}")
    if item.visibility not in VISIBILITY:
        raise ConfigError(f"visibility {item.visibility!r}: one of {', '.join(VISIBILITY)}")
    u = extract.unit(text) if kind in ("experience", "lesson") else \
        {"scene": "", "problem": "", "solution": "", "outcome": ""}
    if llm_unit is not None:
        u = {k: llm_unit[k] or u[k] for k in ("scene", "problem", "solution", "outcome")}
    outcome = item.outcome or u["outcome"] or (extract.outcome_of(text)
                                               if kind in ("experience", "lesson") else "")
    if outcome and outcome not in extract.OUTCOMES:
        raise ConfigError(f"outcome {outcome!r}: one of {', '.join(extract.OUTCOMES)}")
    if item.occurred:
        try:
            dt = datetime.fromisoformat(item.occurred)
            occ_ts = (dt if dt.tzinfo else dt.astimezone()).timestamp()
            iso(occ_ts)  # shown in the local zone: must stay inside years 1 to 9999 there
        except (ValueError, TypeError, OverflowError, OSError):
            raise ConfigError(f"occurred {item.occurred!r}: not an ISO 8601 date-time in "
                              "years 1 to 9999 (in the local time zone too)",
                              option="occurred", value=item.occurred) from None
    else:
        occ_ts = now
    tags = sorted({redact(t)[0].strip() for t in item.tags if t.strip()})
    anchors = [(clean(p), clean(sym), h) for p, sym, h in item.anchors]
    owner, team = clean(item.owner), clean(item.team)
    scope = fingerprint_scope(item.visibility, owner, team)
    row = {"fingerprint": fingerprint(text, kind, anchors, scope), "text": text,
           "kind": kind,
           "scene": u["scene"], "problem": u["problem"], "solution": u["solution"],
           "outcome": outcome, "tags": _json(tags), "context": ctx, "source": item.source,
           "session": clean(item.session), "agent": clean(item.agent),
           "commit_sha": clean(item.commit_sha), "ref": clean(item.ref),
           "occurred_at": iso(occ_ts), "occurred_ts": occ_ts,
           "created_at": iso(now), "created_ts": now, "last_accessed_ts": now,
           "confidence": item.confidence, "visibility": item.visibility, "owner": owner,
           "team": team, "_anchors": anchors}
    row["_structured"] = "llm" if llm_unit is not None else f"rules ({why})"
    return row, found + found_ctx


def _json(v: Any) -> str:
    import json

    return json.dumps(v, ensure_ascii=False)


Anchors = list[tuple[str, str, str]]


def retain(store: MemoryStore, embedder: Any, items: list[Item], *, batch: bool = False,
           near_dup: float = NEAR_DUP, embed: bool = True, llm: Any = None,
           implicit: Callable[[str, Anchors], Anchors] | None = None) -> list[Retained]:
    """Retain ``items``; see the module doc. ``batch``: write all first, embed after, no
    near-duplicate check. ``implicit(text, anchors)`` gives the implicit anchors of a
    memory's redacted text (:mod:`hindsight.memory.implicit`; not for conversation turns;
    None: none now, the next index pass adds them). Raises ConfigError (bad item: nothing
    of the batch is written), ProviderError (the embedder failed: rows stay, vectors are
    missing; ``reembed`` fills them), StorageError."""
    import numpy as np

    from hindsight.memory.lexical import ensure

    now = now_ts()
    prepared = []
    for n, it in enumerate(items):
        try:
            prepared.append(prepare(it, now, None if batch else llm))
        except ConfigError as e:  # which item of several: field items.N (as the server's)
            if len(items) == 1:
                raise
            raise ConfigError(f"items.{n}: {e.message}", option=f"items.{n}" +
                              (f".{e.option}" if e.option else "")) from None
    structured = [row.pop("_structured") for row, _f in prepared]
    anchors = [row.pop("_anchors") for row, _f in prepared]
    extra = [implicit(row["text"], anc) if implicit is not None and
             row["kind"] != "conversation" else [] for (row, _f), anc in zip(
                 prepared, anchors, strict=True)]
    for it in items:  # check before anything is written
        if it.supersedes is not None:
            old = store.get([it.supersedes]).get(it.supersedes)
            if old is None:
                raise ConfigError(f"supersedes {it.supersedes}: no such memory",
                                  option="supersedes", value=it.supersedes)
            if old.status != "active":
                raise ConfigError(f"supersedes {it.supersedes}: that memory is "
                                  f"{old.status}, not active", option="supersedes",
                                  value=it.supersedes)
    ensure(store)  # an index made by this analyzer before anything is added to it
    vecs = None
    warning = ""
    if not batch and embed and embedder is not None:
        try:
            vecs = embedder.embed_batch([r["text"] for r, _ in prepared])
        except ProviderError as e:  # keep the memory; its vector can be made later
            warning = _no_vector(e)
    if vecs is not None:
        out: list[Retained] = []
        for (row, found), it, v in zip(prepared, items, vecs, strict=True):
            same = store.by_fingerprint(row["fingerprint"])
            dup = None if same is not None else _near(
                store, embedder.model_id, v, anchors[len(out)], near_dup,
                (it.visibility, row["owner"], row["team"]), row["text"])
            if dup is not None:
                store.merge_into(dup, iso(now), f"near-duplicate of: {row['text'][:200]}")
                out.append(Retained(dup, "merged", found, structured[len(out)]))
                continue
            (mid, new), = store.insert([row], [anchors[len(out)]], [document(row)], iso(now),
                                       [extra[len(out)]])
            if new:
                store.set_vectors([(mid, np.asarray(v, dtype=np.float32).tobytes())],
                                  embedder.model_id)
            out.append(Retained(mid, "created" if new else "duplicate", found,
                                structured[len(out)]))
            _supersede(store, it, mid, now)
        return out
    res = store.insert([r for r, _ in prepared], anchors,
                       [document(r) for r, _ in prepared], iso(now), extra)
    out = [Retained(mid, "created" if new else "duplicate", f,
                    "" if batch else structured[n], warning)
           for n, ((mid, new), (_r, f)) in enumerate(zip(res, prepared, strict=True))]
    for it, r in zip(items, out, strict=True):
        _supersede(store, it, r.id, now)
    if embed and embedder is not None and not warning:
        todo = [(r.id, row["text"]) for r, (row, _f) in zip(out, prepared, strict=True)
                if r.action == "created"]
        try:
            embed_missing(store, embedder, todo)
        except ProviderError as e:  # stored and searchable by text; vectors come later
            for r in out:
                r.warning = _no_vector(e)
    return out


def _no_vector(e: Exception) -> str:
    return f"stored without a vector (the embedding model failed: {e}); run: hindsight reembed"


def embed_missing(store: MemoryStore, embedder: Any, todo: list[tuple[int, str]],
                  chunk: int = 256) -> int:
    """Embed ``(id, text)`` pairs in chunks and store the vectors; returns how many."""
    import numpy as np

    for i in range(0, len(todo), chunk):
        part = todo[i:i + chunk]
        vecs = embedder.embed_batch([t for _, t in part])
        store.set_vectors([(mid, np.asarray(v, dtype=np.float32).tobytes())
                           for (mid, _), v in zip(part, vecs, strict=True)], embedder.model_id)
    return len(todo)


_POLARITY = frozenset(["not", "no", "never", "none", "nothing", "dont", "didnt", "doesnt",
                       "isnt", "wasnt", "cant", "cannot", "wont", "without", "fail", "failed",
                       "fails", "failure", "always", "must", "avoid"])


def _lexically_close(a: str, b: str) -> bool:
    """Near duplicates must also share most words, every negation/polarity word and every
    word with a digit (numbers, versions, ports, ids): an embedding puts "X fixed it" and
    "X did not fix it", or "port 8080" and "port 9090", close together."""
    from hindsight.memory.textindex import tokens

    ta, tb = set(tokens(a)), set(tokens(b))
    if (ta & _POLARITY) != (tb & _POLARITY):
        return False
    if {t for t in ta if any(c.isdigit() for c in t)} != \
            {t for t in tb if any(c.isdigit() for c in t)}:
        return False
    union = ta | tb
    return not union or len(ta & tb) / len(union) >= 0.6


def _near(store: MemoryStore, model: str, v: Any, anchors: list[tuple[str, str, str]],
          threshold: float, scope: tuple[str, str, str] = ("team", "", ""), text: str = ""
          ) -> int | None:
    """The memory ``v`` is a near duplicate of: the nearest active one (the store's
    top-1, :meth:`MemoryStore.nearest`) when its cosine is ≥ ``threshold``, it has the
    same explicit anchors, the same (visibility, owner, team), and its text is lexically
    close."""
    import numpy as np

    got = store.nearest(model, np.asarray(v, dtype=np.float32), 1, threshold)
    if not got:
        return None
    mid = got[0][0]
    row = store.get([mid]).get(mid)
    if row is None:
        return None
    have = [(a.path, a.symbol) for a in row.anchors if not a.implicit]
    if sorted(have) != sorted((p, s) for p, s, _ in anchors):
        return None
    if (row.visibility, row.owner, row.team) != scope:
        return None
    if text and not _lexically_close(text, row.text):
        return None
    return mid


def _supersede(store: MemoryStore, it: Item, mid: int, now: float) -> None:
    if it.supersedes is None:
        return
    if it.supersedes == mid:
        raise ConfigError(f"memory {mid} cannot supersede itself (the text is the same)")
    store.set_status(it.supersedes, "superseded", f"superseded by {mid}", iso(now), mid)
