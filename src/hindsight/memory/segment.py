"""The analyzer: text → search terms, one function for indexing and for querying.

- **Words** (any script with spaces) are lower-cased; code identifiers also give their
  parts: ``parseConfigFile`` → ``parseconfigfile parse config file``, ``MAX_RETRY`` →
  ``max_retry max retry``, ``os.path.join`` → ``os path join``. Each word is stemmed with
  the Porter stemmer (Porter 1980, Snowball's ``porter`` through PyStemmer: ``failing`` →
  ``fail``); words of three characters or fewer are kept as they are.
- **Stop list** (:data:`STOPWORDS`): English function words plus chat filler (``yeah``,
  ``gonna``, ``lol``, …), as the issue's measured LLM-free pipeline did. They are indexed
  but left out of a query that has other terms, so ``don't`` or ``OR`` alone still find
  the memories that say them.
- **CJK** has no spaces between words (Chinese, Japanese) or glues particles to words
  (Korean). Each run of one script is cut into overlapping character bigrams (a run of one
  character stays itself), the n-gram approach that retrieves about as well as word
  segmentation for CJK (Kwok 1997; Nie, Gao, Zhang & Zhou 2000) and needs no dictionary:
  a sentence query then shares bigrams with every memory that shares a word. Han text
  without kana (Chinese) also gets the words of three or more characters that the jieba
  segmenter (``rjieba``) finds (``数据库``, ``身份验证``), the combination those studies found
  best. Hiragana runs are left out when the text has kanji or katakana (they are mostly
  particles and inflections); CJK function words (:data:`CJK_STOP`) are stop words.
- ``words=False`` skips the jieba words: loading its dictionary takes ≈ 55-65 ms (measured
  here, import of ``rjieba`` 0.2), too much for the prompt hook's 300 ms budget. The index
  always holds the bigrams, so a query without the words still matches; it scores a little
  differently.

Changing what this module returns for some text changes the index: bump :data:`ANALYZER`
so that banks rebuild their lexical index on next use (``lexical.ensure``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

ANALYZER = "1"  # recorded in the bank (meta ``lexical``); a change rebuilds the index
MAX_TERM = 64  # longer words (hashes, base64) are cut to this many characters

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HIRA = "\u3041-\u309f"
_KATA = "\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_HANGUL = "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
_CJK = _HAN + _HIRA + _KATA + _HANGUL
_TOKEN = re.compile(rf"([{_HAN}]+)|([{_HIRA}]+)|([{_KATA}]+)|([{_HANGUL}]+)"
                    rf"|((?:(?![{_CJK}])[^\W_])+(?:[_'](?:(?![{_CJK}])[^\W_])+)*)", re.U)
_KANA_OR_KANJI_CONTENT = re.compile(rf"[{_HAN}{_KATA}]")
_KANA = re.compile(rf"[{_HIRA}{_KATA}]")
_HUMP = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

# English function words (the classic IR stop lists: van Rijsbergen 1979, SMART) and chat
# filler common in agent conversations and LoCoMo-style dialogue. Unstemmed, lower case.
STOPWORDS = frozenset("""a an the and or but if then so of to in on at by for with from as is
are was were be been being am do does did doing done has have had having it its itself this
that these those i me my mine myself we us our ours you your yours he him his she her hers
they them their theirs what which who whom whose when where why how not no nor too very can
will just should would could might must shall may there here than about into over under
again also any all each both some such only own same s t d ll m re ve don dont didnt doesnt
isnt wasnt arent werent havent hasnt wont cant im ive id youre youve theyre thats whats
lets one ones other another more most much many few lot lots up down out off above below
between through during before after while until because since via per whether either
neither yet still even ever get gets got getting go goes going gone went make makes made
let like likes liked really actually basically literally totally definitely probably
maybe perhaps quite rather pretty kind kinda sort sorta thing things stuff something
anything everything nothing someone anyone everyone yeah yes yep yup nope no ok okay oh ah
uh um umm hmm hey hi hello bye wow haha hahaha lol omg btw thanks thank please sure cool
awesome great nice good well right gonna wanna gotta know think thought say said tell told
see saw look looking want wanted way day time""".split())  # noqa: SIM905

# CJK function words and fillers (pronouns, particles, auxiliaries, question words), dropped
# as terms. Chinese: the high-frequency function words of the common stop lists; Korean: a
# few particles that stand alone.
CJK_STOP = frozenset("""的 了 是 在 我 你 他 她 它 和 与 或 也 都 就 不 有 这 那 会 要 能 把 被 给 让
对 从 到 向 中 上 下 个 们 之 以 及 等 啊 哦 嗯 吗 呢 吧 呀 着 过 很 还 又 再 而 但 并 则 其 该 此 为 于
我们 你们 他们 她们 它们 什么 怎么 怎么办 怎样 为什么 这个 那个 这些 那些 这样 那样 这里 那里 因为 所以
但是 如果 可以 没有 一个 就是 还是 已经 时候 自己 现在 然后 还有 或者 以及 而且 不是 可能 应该 需要
这是 那是 是不是 有没有 的话 一下 一些 有些 之后 之前 以后 以前 的时候
이 그 저 것 수 등 및 더 또 는 은 이 가 을 를 에 의 와 과 도 로 으로""".split())  # noqa: SIM905


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("porter", 0)


@lru_cache(maxsize=1)
def _jieba() -> Any:
    import rjieba

    return rjieba


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """Porter stem of ``word``; words of three characters or fewer are kept as they are
    (Porter would cut ``os`` to ``o``, ``bus`` to ``bu``)."""
    return word if len(word) <= 3 else str(_stemmer().stemWord(word))


def _bigrams(run: str) -> Iterator[str]:
    if len(run) == 1:
        yield run
        return
    for i in range(len(run) - 1):
        yield run[i:i + 2]


@lru_cache(maxsize=262_144)
def _word_terms(w: str) -> tuple[tuple[str, bool], ...]:
    """A spaced-script word: itself lower-cased and stemmed, then its identifier parts;
    each with whether it is a stop word (cached: words repeat)."""
    w = w.replace("'", "")
    low = w.lower()
    out = [(_stem(low[:MAX_TERM]), low in STOPWORDS)]
    parts = [p.lower() for seg in w.split("_") for p in _HUMP.findall(seg)]
    if len(parts) > 1:
        out += [(_stem(p), p in STOPWORDS) for p in parts]
    return tuple(out)


def _cjk_terms(run: str) -> Iterator[tuple[str, bool]]:
    for b in _bigrams(run):
        yield b, b in CJK_STOP


def _analyse(text: str, words: bool) -> list[tuple[str, bool]]:
    """(term, stop word?) of ``text`` in order."""
    out: list[tuple[str, bool]] = []
    if text.isascii():
        for m in _TOKEN.finditer(text):
            out += _word_terms(m.group(5))
        return out
    has_kana = _KANA.search(text) is not None
    content_cjk = _KANA_OR_KANJI_CONTENT.search(text) is not None
    for m in _TOKEN.finditer(text):
        han, hira, kata, hangul, word = m.groups()
        if word is not None:
            out += _word_terms(word)
        elif han is not None:
            out += _cjk_terms(han)
            if words and not has_kana and len(han) >= 3:
                out += [(x, x in CJK_STOP) for x in _jieba().cut_for_search(han) if len(x) >= 3]
        elif hira is not None:
            if not content_cjk:
                out += _cjk_terms(hira)
        else:
            out += _cjk_terms(kata if kata is not None else hangul)
    return out


def terms(text: str, *, words: bool = True) -> list[str]:
    """The index terms of ``text`` in order, repeats and stop words kept (a memory's term
    frequencies are counted from them); see the module doc. ``words``: add the jieba words
    of Chinese text (False at hook time). ``[]`` for text without a term."""
    return [t for t, _stop in _analyse(text, words)]


# Stop-listed words that name things in code (a time filter, a sort order, an up/down
# migration, the right column): task context keeps them as search terms (issue 12: fd's
# "Add support for @%s time format" lost `time`, the word that names src/filter/time.rs).
CODE_TERMS = frozenset("""time day kind sort up down out off above below before after
between until one right""".split())  # noqa: SIM905


def query_terms(text: str, *, words: bool = True, keep: frozenset[str] = frozenset()
                ) -> list[str]:
    """The distinct search terms of ``text`` in first-seen order: its terms without stop
    words, unless nothing else remains (``don't``, ``OR`` are still found); stop words in
    ``keep`` (unstemmed, e.g. :data:`CODE_TERMS`) stay."""
    got = _analyse(text, words)
    kept = {_stem(w) for w in keep}
    terms_ = [t for t, stop in got if not stop or t in kept]
    return list(dict.fromkeys(terms_ if terms_ else [t for t, _stop in got]))


def is_stop(term: str) -> bool:
    """Whether an (analysed) term is a stop word."""
    return term in STOPWORDS or term in CJK_STOP


def counts(text: str) -> dict[str, int]:
    """Term → frequency in ``text`` (an indexed field), with the jieba words."""
    out: dict[str, int] = {}
    for t in terms(text):
        out[t] = out.get(t, 0) + 1
    return out
