"""A static embedder for the prompt hook: WordLlama ``l2_supercat`` (256-d token vectors,
32,000-token Llama-2 BPE vocabulary, MIT licence) from the PyPI package ``wordllama``, which
ships its weights; nothing is downloaded.

A text's vector is the mean of its tokens' vectors (no special tokens), then L2-normalised,
as ``WordLlama.embed(norm=True)`` computes it (Miller 2024, github.com/dleemiller/WordLlama),
after runs of white space are made one space (``tests/test_gate.py`` checks the two
agree). There is no network to run: one table lookup per token.

Loading must stay far below the hook's budget, and neither the package nor its tokenizer
is cheap to load: importing ``wordllama`` costs ≈ 230 ms (pydantic, its algorithms) and
parsing the tokenizer's 1.8 MB JSON ≈ 40 ms on an idle core (100-340 ms on this loaded
machine). So the two data files are read directly: the weights as a read-only memory map
of the safetensors file (only the rows used are paged in), and the tokenizer only for
words not yet in a word → token ids table kept in a small SQLite file named by the
caller (:meth:`~WordLlamaStatic.use_word_file`: a prompt's words are looked up there,
≈ 1 ms). The Llama-2 tokenizer never merges across a space (its vocabulary has no token
with ``▁`` after another character), so a text's tokens are its words' tokens in order.
The first load of the tokenizer stores its 16,393 one-token words and its whole
vocabulary in that file; from then on :meth:`~WordLlamaStatic.embed_one` (the hook's
prompt) never loads it: a word not in the table is split into the longest vocabulary
pieces (:meth:`~WordLlamaStatic._greedy`), which on the labelled prompts of
tests/fixtures/gate left the gate's precision and recall within 0.03 of exact
tokenization (0.872 / 0.686 against 0.882 / 0.707 over both halves, within noise). It
needs no NumPy either (importing NumPy costs ≈ 50 ms idle, ≈ 200 ms on this loaded
machine): the prompt's rows are read from the memory map with :mod:`struct`.

Both files are checked against the sha256 sums below through the wheel's ``RECORD``
(which pip verified at install) and their sizes, not hashed on every load (16 MB would
cost ≈ 20 ms).
"""

from __future__ import annotations

import json
import os
from typing import Any

from hindsight.errors import ProviderError

MODEL_ID = "wordllama-l2-supercat-256"
WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
# sha256 (urlsafe base64, as in a wheel's RECORD) and size of wordllama 0.4.0's files
EXPECTED = {WEIGHTS: ("ZLR6LcSTy46FlEB2YBGJc5hS17ZODh7tyxk3olHNn9U", 16384096),
            TOKENIZER: ("kySPKp7DbHs19wCgM9XzYiiq5I22Gu4xAH-kkGLN62g", 1842796)}
MAX_TOKENS = 512  # per text; the mean of a longer text hardly moves
_FILE_VERSION = 2  # of the word file's layout, and of the model it belongs to
LONGEST_WORD = 40  # characters of an unknown word split by :meth:`WordLlamaStatic._greedy`


def package_dir() -> str:
    """The installed ``wordllama`` package directory, found without importing it. Raises
    ProviderError when it is not installed."""
    import importlib.util

    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ProviderError("the prompt gate's static embedder needs the package wordllama")
    return str(list(spec.submodule_search_locations)[0])


def _check(pkg: str) -> None:
    """Raise ProviderError unless both files are the expected ones (RECORD and size)."""
    import glob

    records = glob.glob(os.path.join(os.path.dirname(pkg), "wordllama-*.dist-info", "RECORD"))
    if not records:
        raise ProviderError(f"{pkg}: no RECORD of the wordllama wheel to check its weights")
    with open(records[0], encoding="utf-8") as f:
        rows = {r.split(",")[0]: r.rstrip("\n").split(",") for r in f if r.count(",") >= 2}
    for rel, (digest, size) in EXPECTED.items():
        row = rows.get(f"wordllama/{rel}")
        path = os.path.join(pkg, rel)
        if row is None or row[1] != f"sha256={digest}" or os.path.getsize(path) != size:
            raise ProviderError(f"{path}: not the expected WordLlama file (wordllama 0.4.0)")


class WordLlamaStatic:
    """``embed_batch(texts)`` → float32 array (n, 256), rows unit length (a text with no
    token gives a zero row); :meth:`embed_one` one text without the tokenizer or NumPy.
    ``words`` maps the words (text between spaces) met so far to their token ids. Loads on
    first use;
    raises ProviderError when the package or its files are missing or not the expected
    ones."""

    model_id = MODEL_ID
    dim = 256

    def __init__(self, pkg_dir: str | None = None) -> None:
        self._dir = pkg_dir
        self._table: Any = None
        self._tok: Any = None
        self.words: dict[str, list[int]] = {}
        self._new: dict[str, list[int]] = {}
        self._file = ""
        self._file_ready = False
        self._map: Any = None
        self._loader: Any = None
        self._tok_error: ProviderError | None = None
        self._pieces_new: dict[str, int] = {}
        self._vocab_done = False
        self._ro: Any = None

    def _pkg(self) -> str:
        if self._dir is None:
            self._dir = package_dir()
            _check(self._dir)
        return self._dir

    def _header(self) -> tuple[int, int]:
        """(byte offset, rows) of the float16 table in the safetensors file."""
        path = os.path.join(self._pkg(), WEIGHTS)
        try:
            with open(path, "rb") as f:
                n = int.from_bytes(f.read(8), "little")
                header = json.loads(f.read(n))
            (name, info), = ((k, v) for k, v in header.items() if k != "__metadata__")
        except (OSError, ValueError, KeyError) as e:
            raise ProviderError(f"the static embedder's weights {path}: {e}") from e
        if info.get("dtype") != "F16" or info.get("shape", [0, 0])[1] != self.dim:
            raise ProviderError(f"{path}: tensor {name} is {info.get('dtype')} "
                                f"{info.get('shape')}, not F16 (n, {self.dim})")
        return 8 + n + int(info["data_offsets"][0]), int(info["shape"][0])

    def _load_table(self) -> None:
        import numpy as np

        offset, rows = self._header()
        try:
            self._table = np.memmap(os.path.join(self._pkg(), WEIGHTS), dtype="<f2",
                                    mode="r", offset=offset, shape=(rows, self.dim))
        except (OSError, ValueError) as e:
            raise ProviderError(f"the static embedder's weights: {e}") from e

    def _load_tokenizer(self) -> None:
        """Load the tokenizer (the JSON parse releases the GIL, so this may run in a thread
        beside other work); any failure is kept for :meth:`_tokenize` to raise."""
        from tokenizers import Tokenizer

        path = os.path.join(self._pkg(), TOKENIZER)
        try:
            tok = Tokenizer.from_file(path)
        except Exception as e:  # noqa: BLE001 - tokenizers raises its own types
            self._tok_error = ProviderError(f"the static embedder's tokenizer {path}: {e}")
            return
        tok.no_padding()
        tok.no_truncation()
        self._tok = tok

    def _tokenize(self, words: list[str]) -> None:
        if self._loader is not None:
            self._loader.join()
            self._loader = None
        if self._tok is None and self._tok_error is None:
            self._load_tokenizer()
        if self._tok is None:
            raise self._tok_error or ProviderError("the static embedder's tokenizer")
        if not self._vocab_done:  # the one-token words join the table, once per process
            self._vocab_done = True
            vocab = self._tok.get_vocab()
            for piece, i in vocab.items():
                w = piece[1:]
                if len(piece) > 1 and piece[0] == "\u2581" and "\u2581" not in w and \
                        w not in self.words:
                    self.words[w] = [i]
                    if not self._file_ready:  # the word file gets them once
                        self._new[w] = [i]
            if not self._file_ready:
                self._pieces_new = vocab
        todo = [w for w in words if w not in self.words]
        for w, e in zip(todo, self._tok.encode_batch(todo, add_special_tokens=False),
                        strict=True):
            self.words[w] = self._new[w] = list(e.ids)

    def _greedy(self, words: list[str]) -> dict[str, list[int]]:
        """Token ids of ``words`` by longest vocabulary piece first, left to right (the
        WordPiece rule, Wu et al. 2016), from the word file's vocabulary: close to the
        BPE result without loading the tokenizer (on the labelled prompts 63% of the
        unknown words split the same). ``{}`` when the file has no vocabulary."""
        cut = [w[:LONGEST_WORD] for w in words]
        keys = {("\u2581" if i == 0 else "") + w[i:j] for w in cut
                for i in range(len(w)) for j in range(i + 1, len(w) + 1)}
        keys.add("\u2581")
        vocab: dict[str, int] = dict(self._select("SELECT p, id FROM pieces WHERE p IN ({})",
                                                  sorted(keys)))
        if not vocab:
            return {}
        out: dict[str, list[int]] = {}
        for w, c in zip(words, cut, strict=True):
            ids, i, mark = [], 0, "\u2581"
            while i < len(c):
                for j in range(len(c), i, -1):
                    if mark + c[i:j] in vocab:
                        ids.append(vocab[mark + c[i:j]])
                        i, mark = j, ""
                        break
                else:  # no piece starts here: the word marker alone, or skip a character
                    if mark and mark in vocab:
                        ids.append(vocab[mark])
                    else:
                        i += 1
                    mark = ""
            if ids:
                out[w] = ids
        return out

    def prepare(self, text: str) -> None:
        """Look up ``text``'s words in the word file. When some are not there and the file
        has no vocabulary yet (a new bank), start loading the tokenizer in a background
        thread, so that :meth:`embed_one` can tokenize them without waiting the whole
        load."""
        import threading

        words = sorted(set(" ".join(text.split()).split(" ")) - set(self.words) - {""})
        if words and self._file:
            self.words.update(self._lookup(words))
        if self._tok is None and self._loader is None and not self._file_ready and \
                any(w not in self.words for w in words):
            self._loader = threading.Thread(target=self._load_tokenizer, daemon=True)
            self._loader.start()

    def embed_batch(self, texts: list[str]) -> Any:
        import numpy as np

        if self._table is None:
            self._load_table()
        split = [" ".join(t.split()).split(" ") if t.strip() else [] for t in texts]
        unknown = {w for ws in split for w in ws if w not in self.words}
        if unknown and self._file:
            self.words.update(self._lookup(sorted(unknown)))
            unknown = {w for w in unknown if w not in self.words}
        if unknown:
            self._tokenize(sorted(unknown))
            self._store()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        seqs = [[i for w in ws for i in self.words.get(w, ())][:MAX_TOKENS] for ws in split]
        lens = np.array([len(q) for q in seqs], dtype=np.int64)
        if not lens.sum():
            return out
        ids = np.fromiter((i for q in seqs for i in q), dtype=np.int64, count=int(lens.sum()))
        np.clip(ids, 0, self._table.shape[0] - 1, out=ids)
        rows = np.asarray(self._table[ids], dtype=np.float32)
        has = lens > 0
        starts = np.concatenate([[0], np.cumsum(lens)[:-1]])[has]
        out[has] = np.add.reduceat(rows, starts, axis=0) / lens[has, None]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def embed_one(self, text: str) -> list[float]:
        """The vector of ``text`` as a list of ``dim`` floats (unit length, or zeros when no
        word of it is known), without NumPy. Words not in the table are tokenized when the
        tokenizer is loaded or loading (:meth:`prepare`), else split by :meth:`_greedy`
        (no tokenizer load: ≈ 40 ms idle, 300 ms and more on a loaded machine), else left
        out. Equal to ``embed_batch([text])[0]`` when every word is in the table or the
        tokenizer is used. Raises ProviderError."""
        import mmap
        import struct
        from operator import add

        words = " ".join(text.split()).split(" ") if text.strip() else []
        unknown = sorted({w for w in words if w not in self.words})
        if unknown and self._file:
            self.words.update(self._lookup(unknown))
            unknown = [w for w in unknown if w not in self.words]
        split: dict[str, list[int]] = {}
        if unknown and (self._tok is not None or self._loader is not None or
                        not self._file_ready):
            self._tokenize(unknown)
            self._store()
        elif unknown:
            split = self._greedy(unknown)
        ids = [i for w in words for i in self.words.get(w, split.get(w, ()))][:MAX_TOKENS]
        if self._map is None:
            offset, rows = self._header()
            with open(os.path.join(self._pkg(), WEIGHTS), "rb") as f:
                self._map = (mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ), offset, rows)
        mm, offset, rows = self._map
        row = struct.Struct(f"<{self.dim}e")
        acc = [0.0] * self.dim
        for i in ids:
            acc = list(map(add, acc, row.unpack_from(mm, offset + min(max(i, 0), rows - 1)
                                                     * row.size)))
        norm = sum(x * x for x in acc) ** 0.5
        return [x / norm for x in acc] if norm > 0 else acc

    def learn(self, texts: list[str]) -> int:
        """Tokenize the words of ``texts`` not in the table yet and keep them (in the word
        file too); returns how many were new. Raises ProviderError."""
        words = sorted({w for t in texts for w in t.split()} - set(self.words))
        if words and self._file:
            self.words.update(self._lookup(words))
            words = [w for w in words if w not in self.words]
        if words:
            self._tokenize(words)
            self._store()
        return len(words)

    def use_word_file(self, path: str) -> None:
        """Keep the word table in the SQLite file ``path`` (created when missing): words are
        read from it as texts need them, and words tokenized here are added to it. A file
        that cannot be opened or written only costs tokenizer loads."""
        self._file = path

    def _connect(self) -> Any:
        import sqlite3

        conn = sqlite3.connect(self._file, timeout=0.2, isolation_level=None)
        # a cache: no fsync per write (WAL, synchronous NORMAL); lost words are re-learned
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("CREATE TABLE IF NOT EXISTS words(w TEXT PRIMARY KEY, ids TEXT NOT NULL)"
                     " WITHOUT ROWID")
        conn.execute("CREATE TABLE IF NOT EXISTS pieces(p TEXT PRIMARY KEY, id INTEGER NOT NULL)"
                     " WITHOUT ROWID")
        return conn

    def _reader(self) -> Any:
        """A read-only connection to the word file, kept for this instance; None when the
        file is missing, damaged or of another layout."""
        import sqlite3

        if self._ro is None:
            try:
                conn = sqlite3.connect(f"file:{self._file}?mode=ro", uri=True, timeout=0.2)
                if conn.execute("PRAGMA user_version").fetchone()[0] != _FILE_VERSION:
                    conn.close()
                    return None
            except sqlite3.Error:
                return None
            self._ro = conn
            self._file_ready = True
        return self._ro

    def _select(self, sql: str, keys: list[str]) -> list[tuple[Any, Any]]:
        import sqlite3

        conn = self._reader()
        if conn is None:
            return []
        out: list[tuple[Any, Any]] = []
        try:
            for k in range(0, len(keys), 500):
                chunk = keys[k:k + 500]
                out += conn.execute(sql.format(",".join("?" * len(chunk))), chunk).fetchall()
        except sqlite3.Error:
            return []
        return out

    def _lookup(self, words: list[str]) -> dict[str, list[int]]:
        try:
            return {w: [int(i) for i in ids.split()] for w, ids in
                    self._select("SELECT w, ids FROM words WHERE w IN ({})", words)}
        except ValueError:
            return {}

    def _store(self) -> None:
        import sqlite3

        if not self._file or not (self._new or self._pieces_new):
            return
        try:
            conn = self._connect()
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute(f"PRAGMA user_version={_FILE_VERSION}")
                conn.executemany("INSERT OR IGNORE INTO words VALUES(?, ?)",
                                 [(w, " ".join(map(str, ids))) for w, ids in self._new.items()])
                conn.executemany("INSERT OR IGNORE INTO pieces VALUES(?, ?)",
                                 list(self._pieces_new.items()))
                conn.execute("COMMIT")
                self._new, self._pieces_new = {}, {}
                self._file_ready = True
                self._file_ready = True
            finally:
                conn.close()
        except (sqlite3.Error, OSError):
            pass  # busy or read-only: the words are tokenized again next time
