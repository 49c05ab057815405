"""Recall fusion (memory/fusion.py) and features (memory/features.py): the z-score math on
given channel scores, then each feature on a small real bank (SQLite, hashing vectors)."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from hindsight.app import open_bank
from hindsight.memory import features as ft
from hindsight.memory.fusion import channel_floor, fuse, neighbour_bonus, rrf, zscores
from hindsight.memory.recall import WEIGHTS
from hindsight.models import ChannelRank
from hindsight.models import MemoryItem as Item

S14 = math.sqrt(14)


# --- fusion math ------------------------------------------------------------------------
def test_zscores_standardise_the_candidates_with_the_floor() -> None:
    # values 3, 1 and the floor 0: mean 4/3, population sd sqrt(14)/3
    z, zf = zscores({1: 3.0, 2: 1.0}, 0.0)
    assert z == pytest.approx({1: 5 / S14, 2: -1 / S14}, abs=1e-12)
    assert zf == pytest.approx(-4 / S14, abs=1e-12)


def test_zscores_one_candidate_ties_and_zero_variance() -> None:
    assert zscores({7: 2.0}, 0.0) == (pytest.approx({7: 1.0}), pytest.approx(-1.0))
    z, zf = zscores({1: 2.0, 2: 2.0}, 0.0)  # a tie stays a tie, above the floor
    assert z == pytest.approx({1: 1 / math.sqrt(2), 2: 1 / math.sqrt(2)})
    assert zf == pytest.approx(-math.sqrt(2))
    assert zscores({1: 0.5, 2: 0.5}, 0.5) == ({1: 0.0, 2: 0.0}, 0.0)  # zero variance
    assert zscores({}, 0.0) == ({}, 0.0)
    assert zscores({1: -3.0, 2: -5.0}, -9.0)[0] == pytest.approx(
        {1: (-3 + 17 / 3) / math.sqrt(56 / 9), 2: (-5 + 17 / 3) / math.sqrt(56 / 9)})


def test_channel_floor_is_the_lowest_score_of_a_cut_list() -> None:
    assert channel_floor({1: 3.0, 2: 1.0}, 0.0, 3) == 0.0
    assert channel_floor({1: 3.0, 2: 1.0}, 0.0, 2) == 1.0
    assert channel_floor({}, 0.15, 100) == 0.15


def test_fuse_sums_weighted_zscores_and_fills_missing_with_the_floor() -> None:
    raw = {"bm25": {1: 3.0, 2: 1.0}, "dense": {2: 0.5, 3: 0.3}, "prf": {1: 9.0}}
    got = fuse(raw, {"bm25": 0.0, "dense": 0.15}, {"bm25": 1.0, "dense": 0.5, "prf": 0.0},
               [1, 2, 3, 4])
    mean = (0.5 + 0.3 + 0.15) / 3
    sd = math.sqrt(((0.5 - mean) ** 2 + (0.3 - mean) ** 2 + (0.15 - mean) ** 2) / 3)
    dz = {2: (0.5 - mean) / sd, 3: (0.3 - mean) / sd, None: (0.15 - mean) / sd}
    assert got == pytest.approx({
        1: 5 / S14 + 0.5 * dz[None],
        2: -1 / S14 + 0.5 * dz[2],
        3: -4 / S14 + 0.5 * dz[3],
        4: -4 / S14 + 0.5 * dz[None]}, abs=1e-12)
    assert fuse(raw, {}, {}, [1, 2]) == {1: 0.0, 2: 0.0}  # no weight, no effect


def test_neighbour_bonus_takes_the_best_positive_source() -> None:
    base = {1: 2.0, 2: 1.0, 3: -1.0}
    got = neighbour_bonus(base, {1: [4, 5], 2: [5, 6, 2], 3: [7]}, 0.3)
    assert got == pytest.approx({4: 0.6, 5: 0.6, 6: 0.3})  # 7: its source is below average


def test_rrf_is_weighted_reciprocal_rank() -> None:
    got = rrf({"bm25": [1, 2, 1], "dense": [2], "prf": [9]}, {"bm25": 1.0, "dense": 0.5})
    assert got == pytest.approx({1: 1 / 61, 2: 1 / 62 + 0.5 / 61})


# --- features on text ---------------------------------------------------------------------
def test_named_agents_are_proper_nouns_in_full() -> None:
    agents = ["Caroline", "Melanie", "claude-code", "cursor", "x"]
    assert ft.named_agents("What did Caroline's mom tell Melanie?", agents) == (
        {"Caroline", "Melanie"}, "What did mom tell ?")
    assert ft.named_agents("fix the cursor position", agents) == (set(),
                                                                 "fix the cursor position")
    assert ft.named_agents("What did Claude Code change?", agents) == (
        {"claude-code"}, "What did change?")
    assert ft.named_agents("Carolines plan", agents) == (set(), "Carolines plan")
    assert ft.named_agents("the Melanies' plan", agents) == ({"Melanie"}, "the plan")
    assert ft.named_agents("Caroline", agents) == ({"Caroline"}, "Caroline")  # nothing left
    assert ft.named_agents("X marks it", agents) == (set(), "X marks it")  # too short


def test_query_periods() -> None:
    cases = {
        "What painting did Melanie show on October 13, 2023?": [(2023, 10, 13)],
        "What did Gina find on 1 February, 2023?": [(2023, 2, 1)],
        "When did Melanie go camping in June?": [(None, 6, None)],
        "notes of 2023-05-07": [(2023, 5, 7)],
        "the 3rd of March": [(None, 3, 3)],
        "Maria in December 2023?": [(2023, 12, None)],
        "the beach in 2023": [(2023, None, None)],
        "May I ask about May 2023?": [(2023, 5, None)],
        "we may ship it": [], "May we ship it?": [], "in May": [(None, 5, None)],
        "port 2023": [], "version 2023.1": [], "on 2023-13-40": [],
    }
    assert {q: ft.query_periods(q) for q in cases} == cases


def test_in_periods_reads_the_memory_date_in_the_zone() -> None:
    ts = datetime(2023, 5, 8, 1, 30, tzinfo=UTC).timestamp()
    assert ft.in_periods(ts, [(2023, 5, 8)], UTC)
    assert not ft.in_periods(ts, [(2023, 5, 7)], UTC)
    assert ft.in_periods(ts, [(2023, 5, 7)], ZoneInfo("America/Sao_Paulo"))  # UTC-3
    assert ft.in_periods(ts, [(None, 5, None), (1999, None, None)], UTC)
    assert not ft.in_periods(ts, [], UTC)


def test_when_time_and_question() -> None:
    assert [ft.asks_when(q) for q in ("When did we switch?", "what year was it",
                                      "Whenever it fails", "how long ago was the fix")] == [
        True, True, False, True]
    assert [ft.has_time(t) for t in ("moved it last Friday", "two weeks ago", "in March",
                                     "I may go", "on 2024 hardware", "it fails")] == [
        True, True, True, False, True, False]
    assert [ft.is_question(t) for t in ("Is it safe?", 'He asked "why?"', "It is.")] == [
        True, True, False]


# --- features on a real bank ------------------------------------------------------------
@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    monkeypatch.setenv("TZ", "UTC")
    d = tmp_path / "repo"
    d.mkdir()
    return d


def _ids(res: object) -> list[int]:
    return [h.memory.id for h in res.hits]  # type: ignore[attr-defined]


def test_speaker_boost_and_name_removed_from_the_embedded_query(repo: Path) -> None:
    with open_bank(str(repo)) as b:
        bob, alice = (r.id for r in b.memory.retain_batch([
            Item(text="we decided to cache the parsed index", agent="Bob"),
            Item(text="we decided to cache the parsed index on disk", agent="alice")]))
        assert b.memory.store.agents() == ["Bob", "alice"]
        q = "What did Alice decide about the parsed index cache?"
        off = b.memory.recall(q, weights={"speaker": 0.0})
        assert _ids(off)[:2] == [bob, alice]
        res = b.memory.recall(q)
        assert _ids(res)[:2] == [alice, bob]
        assert res.hits[0].explain["speaker"] == ChannelRank(0, WEIGHTS["speaker"])
        assert "speaker" not in res.hits[1].explain
        # the dense channel embedded the query without the name
        emb = b.memory.embedder
        qv = emb.embed_batch(["What did decide about the parsed index cache?"])[0]
        mv = emb.embed_batch(["we decided to cache the parsed index on disk"])[0]
        assert res.hits[0].explain["dense"].score == pytest.approx(float(qv @ mv), abs=2e-6)
        assert off.hits[1].explain["dense"] == res.hits[0].explain["dense"]  # boost off only
        # "alice" in lower case is a word, not the name
        assert "speaker" not in b.memory.recall(q.replace("Alice", "alice")).hits[0].explain


def test_date_match_in_the_users_zone(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with open_bank(str(repo)) as b:
        may7, june, late = (r.id for r in b.memory.retain_batch([
            Item(text="switched the build to ninja", occurred="2023-05-07T10:00:00+00:00"),
            Item(text="switched the build to ninja for good",
                 occurred="2023-06-01T10:00:00+00:00"),
            Item(text="switched the build to ninja at last",
                 occurred="2023-05-08T01:30:00+00:00")]))
        q = "What did we switch the build to on 7 May 2023?"
        res = b.memory.recall(q)
        assert _ids(res)[0] == may7
        assert {h.memory.id: h.explain.get("date") for h in res.hits} == {
            may7: ChannelRank(0, WEIGHTS["date"]), june: None, late: None}
        monkeypatch.setenv("TZ", "America/Sao_Paulo")  # 01:30 UTC on May 8 is May 7 there
        got = {h.memory.id for h in b.memory.recall(q).hits if "date" in h.explain}
        assert got == {may7, late}


def test_when_prior_and_question_prior(repo: Path) -> None:
    with open_bank(str(repo)) as b:
        dated, plain, asked = (r.id for r in b.memory.retain_batch([
            Item(text="we moved the nightly build into CI last week"),
            Item(text="we moved the nightly build into CI"),
            Item(text="should we move the nightly build into CI?")]))
        res = b.memory.recall("When did we move the nightly build into CI?")
        why = {h.memory.id: h.explain for h in res.hits}
        assert why[dated]["when"] == ChannelRank(0, WEIGHTS["when"])
        assert "when" not in why[plain] and "when" not in why[asked]
        assert why[asked]["question"] == ChannelRank(0, -WEIGHTS["question"])
        assert _ids(res)[0] == dated and _ids(res)[-1] == asked
        res = b.memory.recall("nightly build CI move")  # not a "when" question
        assert all("when" not in h.explain for h in res.hits)


def test_adjacent_turns_get_a_share_of_the_best_hits_score(repo: Path) -> None:
    turns = ["hi there", "the flaky test was the socket timeout", "so we raised it to 30 s",
             "great"]
    other = ["unrelated chat", "about lunch"]
    with open_bank(str(repo)) as b:
        ids = [r.id for r in b.memory.retain_batch(
            [Item(text=t, kind="conversation", source="conversation", session="s1")
             for t in turns] +
            [Item(text=t, kind="conversation", source="conversation", session="s2")
             for t in other])]
        w = {"recency": 0.0, "question": 0.0, "when": 0.0}
        res = b.memory.recall("flaky socket timeout", channels=("bm25", "adjacent"), weights=w)
        why = {h.memory.id: h for h in res.hits}
        # one BM25 candidate: z = +1 against the floor's −1; its neighbours get 0.3 of it
        assert why[ids[1]].score == pytest.approx(1.0)
        assert why[ids[0]].explain["adjacent"].score == pytest.approx(WEIGHTS["adjacent"])
        assert why[ids[2]].explain["adjacent"].score == pytest.approx(WEIGHTS["adjacent"])
        assert why[ids[2]].score == pytest.approx(-1.0 + WEIGHTS["adjacent"])
        assert set(why) == {ids[0], ids[1], ids[2]}  # no turn of the other session


def test_rrf_fusion_is_still_available_and_checked(repo: Path) -> None:
    from hindsight.errors import ConfigError

    with open_bank(str(repo)) as b:
        a = b.memory.retain("cache the parsed index").id
        res = b.memory.recall("parsed index", fusion="rrf", channels=("bm25",))
        assert [(h.memory.id, h.score) for h in res.hits] == [(a, round(1 / 61, 6))]
        with pytest.raises(ConfigError, match="fusion 'x': one of zscore, rrf"):
            b.memory.recall("parsed index", fusion="x")
