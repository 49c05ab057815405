"""The prompt gate: which memories the per-prompt hook injects, if any.

Unconditional per-prompt recall can make coding agents worse (docs/design.md, Hooks and
agents), so a memory is injected only when the prompt is about it. Candidates are the
memories of :data:`INJECT_KINDS` that lexical and anchor recall finds (BM25, code anchors;
no model is loaded) and the nearest by a static embedding (:data:`SEMANTIC_CANDIDATES` of
them). Each candidate passes the gate when

- the prompt **names** one of its anchors (:func:`names_anchor`: the file's path, a file
  name with an extension, a symbol written as an identifier), or
- its **score** ``cos + LEX_WEIGHT · lex`` is the best of the prompt and reaches the
  threshold (setting ``recallThreshold``), or reaches :data:`CLEAR_THRESHOLD` and leads the
  second best by :data:`CLEAR_GAP`. ``cos`` is the cosine of the prompt's and the memory's
  static embeddings (:mod:`hindsight.providers.static_wordllama`), ``lex`` the
  IDF-weighted share of the prompt's search terms the memory holds (:func:`lexical`),
  counted only when the terms it holds carry at least :data:`EVIDENCE_MIN` of IDF, so
  that a memory sharing only a common word gets no lexical credit.

With the warm embedding process (:mod:`hindsight.providers.warm`: the bank's MiniLM kept
loaded by a background process; ``warm`` the client) answering, the score is instead
``dense + WARM_STATIC · cos + WARM_LEX · lex`` (``dense`` the MiniLM cosine, its memory
vectors cached in ``<bank>.db.gate-dense``), shifted onto the threshold's scale, and the
best passes when it reaches the threshold plus :data:`SHORT_STEP` for every search term
the prompt has under :data:`SHORT_TERMS`. When the process does not answer, the static
rule above applies (and the client starts one for the prompts after).

When the prompt names anchors, only the memories it names are injected. At most one
memory passes by its score: the labelled set showed the second best to be wrong far more
often than right.

The constants were chosen on the dev half of the labelled set in tests/fixtures/gate
(``python bench/gate.py``; the README gives both halves' figures). Without the static
embedder (package missing or not the expected files), only named anchors and memories
with ``lex`` ≥ :data:`LEXICAL_ONLY` pass.

Static vectors of the memories are cached beside the bank (``<bank>.db.gate``: ids,
fingerprints and float16 rows, :func:`_read_cache`), checked on every use against the
active memories' (id, fingerprint) pairs; a hook embeds at most :data:`EMBED_BUDGET`
missing memories, and write-back and seeding refresh the rest (:func:`refresh_cache`).
The embedder's word table lives beside it (``<bank>.db.gate-words``). The prompt's words
are looked up there first; when some are missing the tokenizer starts loading in a
thread while lexical recall runs (:meth:`WordLlamaStatic.prepare`). Both files are only
savings: deleting them costs one rebuild.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
from typing import TYPE_CHECKING, Any

from hindsight.errors import ProviderError
from hindsight.models import Memory

if TYPE_CHECKING:
    from hindsight.memory.service import MemoryService
    from hindsight.store.base import MemoryStore

INJECT_KINDS = ("convention", "decision", "lesson", "experience", "fact")
# Only the start of a prompt is searched: a pasted 100,000-word prompt kept the regular
# expressions (which hold the GIL) busy past the hook's time budget.
PROMPT_CHARS = 2000
LEX_WEIGHT = 0.3        # weight of ``lex`` beside the cosine (dev half of tests/fixtures/gate)
MIN_BANK = 100          # IDF computed as if the bank held at least this many memories
EVIDENCE_MIN = 3.5      # Σ IDF of the matched terms below which ``lex`` counts 0 (same)
CLEAR_THRESHOLD = 0.39  # a lower score that still passes when it leads clearly (same)
CLEAR_GAP = 0.08        # by this much over the second best score (same)
LEXICAL_ONLY = 0.6      # ``lex`` needed when no static embedder is available (same)
LEXICAL_CANDIDATES = 20     # memories taken from lexical and anchor recall
SEMANTIC_CANDIDATES = 10    # memories taken from the static embedding's nearest
EMBED_BUDGET = 128      # missing cached vectors one hook computes (≈ 25 ms idle)
CACHE_SUFFIX = ".gate"
DENSE_SUFFIX = "-dense"  # the warm model's vectors, beside the static ones
WARM_BUDGET = 4         # missing warm-model vectors one hook asks for (≈ 50 ms; seeding and
# write-back fill the rest: with 16 the prompt hook of an unseeded 10k bank took p95 370 ms)
# With the warm model (MiniLM, :mod:`hindsight.providers.warm`) the score is
# ``dense + WARM_STATIC · cos + WARM_LEX · lex``, passing at WARM_THRESHOLD (dev half).
WARM_STATIC = 0.5
WARM_LEX = 0.15
WARM_THRESHOLD = 0.54
SHORT_TERMS = 4         # with the warm model, a prompt of fewer search terms than this
SHORT_STEP = 0.1        # needs this much more score per term missing ("run the tests")
WORDS_SUFFIX = "-words"  # the embedder's word → token ids table, beside the cache


def lexical(terms: list[str], row: Memory, df: dict[str, int], n: int
            ) -> tuple[float, float]:
    """``(share, evidence)`` of the prompt's search ``terms`` found in the memory (text, tags
    and anchors, singular or plural): ``share`` = Σ idf over matched terms / Σ idf over all
    terms (in [0, 1]; 0 for no terms), ``evidence`` = Σ idf over matched terms, with idf(t) =
    ln(1 + N / (1 + df(t))) as in BM25's IDF (Robertson & Zaragoza 2009) without its
    negative part; ``df`` from the full-text index, ``n`` the active memories (at least
    :data:`MIN_BANK`: in a bank of a few memories every word would look rare)."""
    from hindsight.memory.segment import terms as analyse
    from hindsight.memory.textindex import forms

    if not terms:
        return 0.0, 0.0
    hay = set(analyse(" ".join([row.text, " ".join(row.tags),
                                " ".join(a.path + " " + a.symbol for a in row.anchors)]),
                      words=False))
    n = max(n, MIN_BANK)
    idf = {t: math.log(1 + n / (1 + df.get(t, 0))) for t in terms}
    total = sum(idf.values())
    got = sum(v for t, v in idf.items() if any(f in hay for f in forms(t)))
    return (got / total if total else 0.0), got


_IDENT = re.compile(r"[A-Za-z_][\w]*")


def _written(name: str, prompt: str, call_only: bool = False) -> bool:
    """Whether ``name`` occurs in ``prompt`` as a whole word (``name(`` or `` `name` ``
    only, when ``call_only``)."""
    e = re.escape(name)
    if call_only:
        return re.search(rf"(?<![\w.]){e}\(|`{e}`", prompt) is not None
    return re.search(rf"(?<![\w/.-]){e}(?![\w-])", prompt) is not None


def names_anchor(prompt: str, row: Memory) -> bool:
    """Whether ``prompt`` names a file or symbol ``row`` is anchored to: the path itself; a
    file name with an extension or a capitalised one (``tax.py``, ``Dockerfile``); a
    symbol's local name (``ConnectionPool.acquire``) or its last part when that is written
    like an identifier (``wrap_help``, ``Money``, ``parseArgs``). An ordinary word that is
    also a function's name (``main``, ``run``) names it only as ``main(`` or `` `main` ``."""
    for a in row.anchors:
        base = a.path.rsplit("/", 1)[-1]
        if a.path and (_written(a.path, prompt) or
                       ((("." in base.strip(".")) or base[:1].isupper()) and
                        _written(base, prompt))):
            return True
        if not a.symbol:
            continue
        last = a.symbol.rsplit(".", 1)[-1]
        if "." in a.symbol and _written(a.symbol, prompt):
            return True
        plain = last.islower() and "_" not in last.strip("_")
        if _IDENT.fullmatch(last) and _written(last, prompt, call_only=plain):
            return True
    return False


def named_ids(memory: MemoryService, prompt: str, limit: int = 50) -> list[int]:
    """Memories with an anchor whose file name or symbol's last part occurs in ``prompt``
    as a whole word, at most ``limit`` (candidates for :func:`names_anchor`, which
    decides; the fresh-user report of stop 20: fifty anchors named like pieces of the
    prompt's words filled the list before the one the prompt named)."""
    out: list[int] = []
    for mid, path, symbol, _hash, _stale in memory.store.anchors_all():
        base = path.rsplit("/", 1)[-1]
        last = symbol.rsplit(".", 1)[-1]
        if not ((base and base in prompt) or (last and last in prompt)):
            continue  # the cheap test first; then whole words only, so that anchors named
        if any(n and _written(n, prompt) for n in (path, base, symbol, last)):  # like a
            out.append(mid)  # piece of a prompt word ("it" in "edit") take no place
            if len(out) >= limit:
                break
    return out


def cache_path(bank_path: str) -> str:
    """The static-vector cache file of the bank database ``bank_path``."""
    return bank_path + CACHE_SUFFIX


def _load_words(embedder: Any, path: str) -> None:
    """Point ``embedder`` at its word file beside the cache (if it keeps one)."""
    if hasattr(embedder, "use_word_file"):
        embedder.use_word_file(path + WORDS_SUFFIX)


_MAGIC = b"hindsight-gate 1\n"
_FP = 32  # bytes kept of a fingerprint (xxh3-128 in hex: all of it)


def _read_cache(path: str, model: str, dim: int) -> tuple[tuple[int, ...], bytes, bytes]:
    """``(ids, fingerprints, rows)`` of the cache file: ids in order, then the
    fingerprints (:data:`_FP` bytes each) and the float16 rows (dim ``<e`` each) as two
    blocks; empty when it is missing, damaged or of another model. Layout: magic line,
    model id line, ``<II`` dim and n, n ``<q`` ids, the fingerprints, the rows."""
    import struct

    try:
        with open(path, "rb") as f:
            data = f.read()
        if not data.startswith(_MAGIC):
            return (), b"", b""
        end = data.index(b"\n", len(_MAGIC))
        d, n = struct.unpack_from("<II", data, end + 1)
        if data[len(_MAGIC):end].decode("utf-8") != model or d != dim:
            return (), b"", b""
        at = end + 9
        ids = struct.unpack_from(f"<{n}q", data, at)
        fps, rows = at + 8 * n, at + 8 * n + _FP * n
        if len(data) != rows + 2 * dim * n:
            return (), b"", b""
    except (OSError, ValueError, struct.error, UnicodeDecodeError):
        return (), b"", b""
    return ids, data[fps:rows], data[rows:]


def _write_cache(path: str, model: str, dim: int, rows: dict[int, tuple[bytes, bytes]]
                 ) -> None:
    import struct

    ids = sorted(rows)
    body = b"".join([_MAGIC, model.encode("utf-8"), b"\n", struct.pack("<II", dim, len(ids)),
                     struct.pack(f"<{len(ids)}q", *ids)] + [rows[i][0] for i in ids] +
                    [rows[i][1] for i in ids])
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(body)
        os.replace(tmp, path)
    except OSError:  # a read-only state directory: the cache is only a saving
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def cached_rows(store: MemoryStore, embedder: Any, path: str,
                budget: int | None = EMBED_BUDGET) -> tuple[list[int], bytes]:
    """``(ids, rows)``: the active memories of :data:`INJECT_KINDS` with a cached static
    vector, in id order, and their vectors as one buffer of float16 rows (little-endian,
    ``embedder.dim`` each, unit length). Memories not cached yet (or whose fingerprint
    changed) are embedded now, at most ``budget`` of them (None: all); the others are left
    out until a later call. Rewrites the cache when anything changed. Raises
    ProviderError."""
    _load_words(embedder, path)
    dim, size = embedder.dim, 2 * embedder.dim
    want = [(i, fp.encode("ascii", "replace")[:_FP].ljust(_FP, b"-")) for i, fp in
            store.active_fingerprints(list(INJECT_KINDS))]
    ids, fps, block = _read_cache(path, embedder.model_id, dim)
    if list(ids) == [i for i, _f in want] and fps == b"".join(f for _i, f in want):
        return list(ids), block  # the usual case: nothing changed since the last write
    have = {i: (fps[_FP * k:_FP * (k + 1)], block[size * k:size * (k + 1)])
            for k, i in enumerate(ids)}
    wanted = dict(want)
    rows = {i: v for i, v in have.items() if wanted.get(i) == v[0]}
    missing = [i for i, _f in want if i not in rows]
    todo = missing if budget is None else missing[:budget]
    if todo:
        got = store.get(todo)
        todo = [i for i in todo if i in got]
        vecs = embedder.embed_batch([got[i].text for i in todo]).astype("<f2")
        rows.update({i: (wanted[i], vecs[k].tobytes()) for k, i in enumerate(todo)})
    if todo or len(rows) != len(have):
        _write_cache(path, embedder.model_id, dim, rows)
    out = sorted(rows)
    return out, b"".join(rows[i][1] for i in out)


LEARN_RECENT = 5000  # memories of any kind whose words a refresh adds to the word table


def refresh_cache(store: MemoryStore, embedder: Any, path: str) -> int:
    """Bring the cache at ``path`` up to date (every missing vector) and add the words of
    the :data:`LEARN_RECENT` newest memories of any kind (past prompts among them) to the
    word table, so that later prompts seldom need the tokenizer; returns how many memories
    the cache holds. Raises ProviderError."""
    n = len(cached_rows(store, embedder, path, budget=None)[0])
    if hasattr(embedder, "learn"):
        embedder.learn([m.text for m in store.list_memories(limit=LEARN_RECENT)])
    return n


def refresh_dense(store: MemoryStore, warm: Any, cache: str, embedder: Any = None) -> int:
    """Bring the warm model's cache beside ``cache`` up to date (every missing vector),
    computed by ``embedder`` when it is the warm model (the bank's own, in a background
    process) or else by the warm process; only when the warm path is in use (the cache
    exists or the process listens). Returns the memories cached (0: not in use or the
    model failed)."""
    path = dense_cache_path(cache)
    if warm is None or not (os.path.exists(path) or warm.listening()):
        return 0
    use = embedder if getattr(embedder, "model_id", None) == warm.model_id else warm
    try:
        return len(cached_rows(store, use, path, budget=None)[0])
    except ProviderError:
        return 0


NUMPY_FROM = 4000  # cached memories from which NumPy (≈ 50 ms to import) pays for itself


def cosines(q: list[float], rows: bytes, dim: int) -> list[float]:
    """Dot products of ``q`` with each float16 row of ``rows`` (cosines, all being unit
    vectors): plain Python below :data:`NUMPY_FROM` rows (≈ 10 µs a row), NumPy above."""
    import struct

    n = len(rows) // (2 * dim)
    if n >= NUMPY_FROM:
        import numpy as np

        mat = np.frombuffer(rows, dtype="<f2").reshape(n, dim).astype(np.float32)
        return [float(x) for x in mat @ np.asarray(q, dtype=np.float32)]
    from operator import mul

    row = struct.Struct(f"<{dim}e")
    return [sum(map(mul, q, row.unpack_from(rows, k * row.size))) for k in range(n)]


def _semantic(memory: MemoryService, prompt: str, embedder: Any, path: str,
              lexical_ids: list[int], budget: int = EMBED_BUDGET) -> dict[int, float]:
    """Cosine of the prompt to its :data:`SEMANTIC_CANDIDATES` nearest cached memories and to
    every one of ``lexical_ids`` (those not cached yet embedded now, at most ``budget``)."""
    ids, rows = cached_rows(memory.store, embedder, path, budget)  # loads the word table too
    qv = embedder.embed_one(prompt)
    cos = dict(zip(ids, cosines(qv, rows, embedder.dim), strict=True))
    out = dict(sorted(cos.items(), key=lambda kv: -kv[1])[:SEMANTIC_CANDIDATES])
    rest = [i for i in lexical_ids if i not in cos]
    if rest:  # not cached yet (over the budget): embedded here as the prompt is
        got = memory.store.get(rest[:budget])
        rest = [i for i in rest if i in got]
        texts = [got[i].text for i in rest]
        # one request to the warm process; the static embedder one text at a time (its
        # embed_one needs neither tokenizer nor NumPy)
        vecs = embedder.embed_batch(texts) if getattr(embedder, "remote", False) and texts \
            else [embedder.embed_one(t) for t in texts]
        for i, v in zip(rest, vecs, strict=True):
            cos[i] = sum(a * float(b) for a, b in zip(qv, v, strict=True))
    out.update({i: cos[i] for i in lexical_ids if i in cos})
    return out


def dense_cache_path(bank_path: str) -> str:
    """The cache file of the warm model's vectors (:func:`cached_rows` layout) of the bank
    database ``bank_path``."""
    return bank_path + CACHE_SUFFIX + DENSE_SUFFIX


def _warm_cosines(memory: MemoryService, prompt: str, warm: Any, cache: str,
                  ids: list[int]) -> dict[int, float] | None:
    """Cosines of the prompt's warm-model vector (:mod:`hindsight.providers.warm`) to its
    nearest cached memories and to ``ids``; None when the warm process does not answer."""
    try:
        return _semantic(memory, prompt, warm, dense_cache_path(cache), ids, WARM_BUDGET)
    except ProviderError:
        return None


def _terms(memory: MemoryService, prompt: str) -> tuple[list[str], dict[str, int], int, str]:
    """The prompt's search terms, their document frequencies, the active count, and the
    text to recall with (the other number of a word no memory uses as written)."""
    from hindsight.memory.lexical import document_frequency
    from hindsight.memory.segment import query_terms
    from hindsight.memory.textindex import forms

    terms = query_terms(prompt, words=False)[:40]  # no segmenter dictionary in the hook
    df, n = document_frequency(memory.store, terms) if terms else ({}, 0)
    extra = " ".join(f for t in terms if not df.get(t) for f in forms(t)[1:])
    return terms, df, max(1, n or memory.store.active_count()), f"{prompt} {extra}"


def gate(memory: MemoryService, prompt: str, *, threshold: float, exclude: set[int],
         agent: str = "", embedder: Any = None, cache: str = "", warm: Any = None
         ) -> list[tuple[Memory, float]]:
    """The memories that pass the gate for ``prompt`` (module doc), best first, as
    ``(memory, score)``; a named anchor's score is at least 1.0. A memory private to
    another agent is never a candidate; one in ``exclude`` (already injected in the
    session) is not injected again, and the one that would come after it is not injected
    in its place. ``[]`` for an empty prompt or bank. Raises StorageError."""
    prompt = prompt[:PROMPT_CHARS]
    if getattr(memory, "remote", False) and prompt.strip():
        return _remote_gate(memory, prompt, threshold, exclude, agent)
    if not prompt.strip() or not memory.store.has_active():
        return []
    if embedder is not None and cache and hasattr(embedder, "prepare"):
        with contextlib.suppress(ProviderError):
            _load_words(embedder, cache)
            embedder.prepare(prompt)  # in a new bank the tokenizer loads meanwhile
    terms, df, n, query = _terms(memory, prompt)
    res = memory.recall(query, k=LEXICAL_CANDIDATES, kinds=list(INJECT_KINDS), agent=agent,
                        channels=("bm25", "anchor", "recency", "lesson"), embed=False,
                        touch=False) if terms else None
    rows = {h.memory.id: h.memory for h in res.hits} if res else {}
    rows.update(memory.get_many([i for i in named_ids(memory, prompt) if i not in rows]))
    cos: dict[int, float] | None = None
    if embedder is not None and cache:
        try:
            cos = _semantic(memory, prompt, embedder, cache, list(rows))
        except ProviderError:
            cos = None
    dense = _warm_cosines(memory, prompt, warm, cache, list(rows)) \
        if warm is not None and cos is not None else None
    if dense:
        rows.update(memory.get_many([i for i in dense if i not in rows]))
    if cos:
        rows.update(memory.get_many([i for i in cos if i not in rows]))
    scored: list[tuple[Memory, float, bool]] = []
    for mid, row in rows.items():
        if row.status != "active" or row.kind not in INJECT_KINDS or \
                not (row.visibility != "private" or row.owner == agent):
            continue
        share, evidence = lexical(terms, row, df, n)
        lex = share if evidence >= EVIDENCE_MIN else 0.0
        if dense is not None and cos is not None:
            c = cos.get(mid, 0.0)
            score = dense.get(mid, c) + WARM_STATIC * c + WARM_LEX * lex + threshold - \
                WARM_THRESHOLD  # on the static rule's scale, as both pass at ``threshold``
        else:
            score = (cos.get(mid, 0.0) + LEX_WEIGHT * lex) if cos is not None else lex
        scored.append((row, score, names_anchor(prompt, row)))
    if not scored:
        return []
    named = [(r, max(sc, 1.0)) for r, sc, nm in scored if nm]
    if named:
        out = sorted(named, key=lambda p: (-p[1], p[0].id))
    else:
        scored.sort(key=lambda p: (-p[1], p[0].id))
        row, best = scored[0][0], scored[0][1]
        second = scored[1][1] if len(scored) > 1 else 0.0
        short = SHORT_STEP * max(0, SHORT_TERMS - len(terms))
        ok = best >= max(threshold, LEXICAL_ONLY) if cos is None else \
            best >= threshold + short if dense is not None else \
            best >= threshold or (best >= CLEAR_THRESHOLD and best - second >= CLEAR_GAP)
        out = [(row, best)] if ok else []
    # already shown in this session: not again, and no runner-up takes its place
    return [(r, sc) for r, sc in out if r.id not in exclude]


def _remote_gate(memory: MemoryService, prompt: str, threshold: float, exclude: set[int],
                 agent: str) -> list[tuple[Memory, float]]:
    """The gate in client mode: the server's lexical recall gives the candidates, scored
    lexically as without a static embedder (``LEXICAL_ONLY``); document frequencies are
    not known here, so every term counts as rare (df 0, N = :data:`MIN_BANK`)."""
    from hindsight.memory.segment import query_terms

    terms = query_terms(prompt, words=False)[:40]
    res = memory.recall(prompt, k=LEXICAL_CANDIDATES, kinds=list(INJECT_KINDS),
                        channels=("bm25", "anchor", "recency", "lesson"), embed=False,
                        touch=False)
    scored = []
    for h in res.hits:
        row = h.memory
        if row.status != "active" or not (row.visibility != "private" or row.owner == agent):
            continue
        share, evidence = lexical(terms, row, {}, MIN_BANK)
        named = names_anchor(prompt, row)
        sc = max(share, 1.0) if named else (share if evidence >= EVIDENCE_MIN else 0.0)
        if named or sc >= max(threshold, LEXICAL_ONLY):
            scored.append((row, sc))
    scored.sort(key=lambda p: (-p[1], p[0].id))
    return [(r, sc) for r, sc in scored[:1 if not any(sc >= 1.0 for _, sc in scored)
                                        else len(scored)] if r.id not in exclude]
