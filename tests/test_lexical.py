"""The lexical engine (memory/segment.py, memory/lexical.py): the analyzer's terms, BM25F
scores against the formula, the postings budget, the index built in place, and CJK
sentence queries through recall and the prompt hook (a real subprocess)."""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import FIXTURES
from hookutil import hook, make_env, make_repo

from hindsight.app import open_bank
from hindsight.memory import lexical, segment
from hindsight.models import MemoryItem


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    d = tmp_path / "repo"
    d.mkdir()
    return d


def test_analyzer_words_identifiers_and_stop_words() -> None:
    assert segment.terms("parseConfigFile failing on os.path.join; MAX_RETRY x2") == [
        "parseconfigfil", "pars", "config", "file", "fail", "on", "os", "path", "join",
        "max_retri", "max", "retri", "x2", "x", "2"]
    # stop words and chat filler are indexed, but left out of a query with other words
    assert segment.terms("yeah the cache") == ["yeah", "the", "cach"]
    assert segment.query_terms("yeah so the caches, the CACHE") == ["cach"]
    assert segment.query_terms("don't") == ["dont"]  # nothing else: kept
    assert segment.query_terms("") == [] and segment.query_terms("🙂 -- ''") == []


def test_analyzer_cjk() -> None:
    # Chinese: bigrams, plus jieba words of three or more characters unless words=False
    assert segment.terms("数据库连接超时") == ["数据", "据库", "库连", "连接", "接超", "超时",
                                              "数据库"]
    assert segment.terms("数据库连接超时", words=False) == ["数据", "据库", "库连", "连接",
                                                           "接超", "超时"]
    # function words are stop words: out of a query that has other terms
    assert segment.query_terms("我们的数据库") == ["我们", "们的", "的数", "数据", "据库",
                                                   "数据库"][1:] and "我们" in segment.terms(
        "我们的数据库")
    # Japanese: hiragana (particles, inflections) left out beside kanji/katakana; no jieba
    assert segment.terms("接続がタイムアウトした") == ["接続", "タイ", "イム", "ムア", "アウ",
                                                       "ウト"]
    assert segment.terms("ありがとう") == ["あり", "りが", "がと", "とう"]  # kana only: kept
    # Korean: bigrams of each word
    assert segment.terms("연결 시간 초과가") == ["연결", "시간", "초과", "과가"]


def test_bm25f_scores_follow_the_formula(repo: Path) -> None:
    """Scores equal the module's formula computed by hand from the term counts."""
    with open_bank(str(repo)) as b:
        a = b.memory.retain("parser parser crash", kind="fact", context="tsx tsx tsx").id
        c = b.memory.retain("parser ok", kind="fact").id
        d = b.memory.retain("tsx widget docs", kind="fact").id
        b.memory.retain_batch([MemoryItem(text=f"filler note {i}", kind="fact")
                               for i in range(5)], embed=False)
        got = dict(lexical.search(b.stores.memory, "parser tsx", 10, 0.5))
        no_ctx = dict(lexical.search(b.stores.memory, "parser tsx", 10, 0.0))
    k1, bb, n = lexical.K1, lexical.B, 8
    # parser parser crash + tsx tsx tsx / parser ok / tsx widget doc / filler note i (x5)
    length = {a: 6, c: 2, d: 3}
    avg = (6 + 2 + 3 + 5 * 3) / n

    def part(tf: float, m: int, df: int) -> float:
        idf = max(1e-6, math.log((n - df + 0.5) / (df + 0.5)))
        return idf * tf * (k1 + 1) / (tf + k1 * (1 - bb + bb * length[m] / avg))

    want = {a: part(2, a, 2) + part(0.5 * 3, a, 2), c: part(1, c, 2), d: part(1, d, 2)}
    assert set(got) == set(want)
    for m, s in want.items():
        assert got[m] == pytest.approx(s, rel=1e-12)
    # context weight 0: the context is not searched, its length still counts
    assert no_ctx[a] == pytest.approx(part(2, a, 2), rel=1e-12) and no_ctx[a] < got[a]
    assert sorted(got, key=lambda m: -got[m]) == [a, c, d]


def test_python_and_numpy_paths_give_the_same_floats(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Small queries are scored without NumPy (the hook never imports it); the two paths
    must agree to the last bit, as two backends must."""
    import random

    rnd = random.Random(5)
    words = ["cache", "index", "parser", "retry", "hook", "session", "config", "deploy", "branch", "lock", "queue"]
    with open_bank(str(repo)) as b:
        b.memory.retain_batch([MemoryItem(
            text=" ".join(rnd.choice(words) for _ in range(rnd.randint(1, 12))), kind="fact",
            context=" ".join(rnd.choice(words) for _ in range(rnd.randint(0, 30))))
            for _ in range(300)], embed=False)
        store = b.stores.memory
        for q in ("cache retry", "parser hook lock queue", "deploy", "branch config index"):
            for cw in (0.0, 0.35):
                for name in ("PY_POSTINGS", "NP_LOADED_POSTINGS"):
                    monkeypatch.setattr(lexical, name, 10**9)
                py = lexical.search(store, q, 50, cw)
                for name in ("PY_POSTINGS", "NP_LOADED_POSTINGS"):
                    monkeypatch.setattr(lexical, name, 0)
                npy = lexical.search(store, q, 50, cw)
                assert py == npy and len(py) == 50, (q, cw)


def test_postings_budget_scores_frequent_terms_only_for_candidates(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with open_bank(str(repo)) as b:
        only = b.memory.retain("rare marker", kind="fact").id
        both = b.memory.retain("rare marker common", kind="fact").id
        rest = [r.id for r in b.memory.retain_batch(
            [MemoryItem(text=f"common filler number {i}", kind="fact") for i in range(40)],
            embed=False)]
        store = b.stores.memory
        for name in ("PY_POSTINGS", "NP_LOADED_POSTINGS"):  # the NumPy path has the budget
            monkeypatch.setattr(lexical, name, 0)
        exact = lexical.search(store, "rare common", 100, 0.35)
        # "rare" (df 2) outweighs "common" (df 41 of 42); the shorter memory ranks first
        assert [i for i, _ in exact[:2]] == [only, both]
        assert {i for i, _ in exact[2:]} == set(rest)
        monkeypatch.setattr(lexical, "MAX_POSTINGS", 2)  # "rare" (df 2) alone fits
        pruned = lexical.search(store, "rare common", 100, 0.35)
        # "common" only refined the two candidates: their scores are exact, no other comes
        assert pruned == exact[:2]
        monkeypatch.setattr(lexical, "REFINE", 1)
        assert lexical.search(store, "rare common", 100, 0.35) == exact[:1]


def test_index_built_in_place_and_rebuilt_for_a_new_analyzer(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with open_bank(str(repo)) as b:
        m = b.memory.retain("the watcher debounces saves for 200 ms", kind="fact").id
        path = b.path
    with sqlite3.connect(path) as c:  # as a bank whose index was never built
        for t in ("lex_terms", "lex_blocks", "lex_docs"):
            c.execute(f"DELETE FROM {t}")
        c.execute("UPDATE lex_stats SET docs=0, len_body=0, len_context=0")
        c.execute("DELETE FROM meta WHERE key IN ('lexical', 'lexical_building')")
    with open_bank(str(repo)) as b:
        assert [h.memory.id for h in b.memory.recall("debounce", channels=("bm25",)).hits] \
            == [m]
        assert b.stores.memory.get_meta("lexical") == segment.ANALYZER
        assert b.stores.memory.lex_stats()[0] == 1
        monkeypatch.setattr(segment, "ANALYZER", "test-next")
        n = b.memory.retain("a second memory about saves", kind="fact").id
        assert b.stores.memory.get_meta("lexical") == "test-next"
        assert b.stores.memory.lex_stats()[0] == 2
        assert [h.memory.id for h in b.memory.recall("saves", channels=("bm25",)).hits] \
            == [m, n] or [m, n][::-1]


def test_legacy_bank_gets_the_lexical_index(tmp_path: Path, hindsight_home: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The 0.1.0 bank: FTS5 table dropped by migration 0004, index built on first use."""
    banks = hindsight_home / "banks"
    banks.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURES / "banks" / "legacy-0.1.0.db", banks / "legacy-bank.db")
    monkeypatch.setenv("HINDSIGHT_BANK_ID", "legacy-bank")
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    root = tmp_path / "r"
    root.mkdir()
    with open_bank(str(root), repo_root_path=str(root)) as b:
        assert [h.memory.id for h in b.memory.recall("deadlocked", channels=("bm25",)).hits
                ] == [2]
        assert b.stores.memory.lex_stats()[0] == 2
    with sqlite3.connect(banks / "legacy-bank.db") as c:
        assert c.execute("SELECT count(*) FROM sqlite_master WHERE name='memory_fts'"
                         ).fetchone()[0] == 0
        assert "0007_lexical" in {r[0] for r in c.execute("SELECT name FROM migrations")}


CJK = [  # (language, lesson, a sentence prompt that is no substring of it)
    ("zh", "数据库连接池在高负载下会超时，把连接池调大到五十就好了",
     "数据库连接超时了怎么办"),
    ("ja", "データベースの接続がタイムアウトしたら、接続プールを五十に増やすと直った",
     "データベース接続のタイムアウトはどう直す？"),
    ("ko", "데이터베이스 연결 시간 초과는 연결 풀을 50으로 늘려서 해결했다",
     "데이터베이스 연결 시간 초과가 나면 어떻게 해요?"),
]


@pytest.mark.parametrize(("lang", "lesson", "prompt"), CJK, ids=[c[0] for c in CJK])
def test_cjk_sentence_query_finds_the_memory(repo: Path, lang: str, lesson: str,
                                             prompt: str) -> None:
    """Field report: a CJK sentence was searched as one phrase and found nothing."""
    assert prompt not in lesson
    with open_bank(str(repo)) as b:
        b.memory.retain("The cache is warmed at start-up", kind="lesson")
        m = b.memory.retain(lesson, kind="lesson").id
        b.memory.retain("日本語と中文と한국어의 다른 메모", kind="fact")
        assert [h.memory.id for h in b.memory.recall(prompt, channels=("bm25",)).hits][0] == m
        assert b.memory.recall(prompt).hits[0].memory.id == m


@pytest.mark.parametrize(("lang", "lesson", "prompt"), CJK, ids=[c[0] for c in CJK])
def test_cjk_prompt_hook_injects_the_memory(tmp_path: Path, lang: str, lesson: str,
                                            prompt: str) -> None:
    env = make_env(tmp_path)
    r = make_repo(tmp_path)
    from hookutil import cli

    mid = json.loads(cli(["retain", lesson, "--kind", "lesson", "--json"], env, r.path))["id"]
    cli(["retain", "The cache is warmed at start-up", "--kind", "lesson"], env, r.path)
    out = hook("user-prompt-submit", {"session_id": "s1", "cwd": str(r.path),
                                      "prompt": prompt}, env)
    assert out.returncode == 0
    text = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"- #{mid} lesson " in text and lesson in text
    assert "warmed" not in text


def test_idf_of_a_df_above_n_is_the_floor() -> None:
    """N and df read a moment apart while another process writes (PostgreSQL: two
    statements) can give df > N: the weight is the floor, not a math domain error (the
    server's 500s under 16 clients in bench/server_load.py); below N it is unchanged."""
    assert lexical.idf(10, 12) == lexical.IDF_FLOOR
    assert lexical.idf(10, 10) == lexical.IDF_FLOOR
    assert lexical.idf(100, 3) == math.log((100 - 3 + 0.5) / (3 + 0.5))
