"""Task context (``hindsight context``, ``bank.context``) on a real git repository with a
scripted history: each channel is tried where it alone can tell the right file, and the
answer is checked exactly (order, reasons); the channel formulas are checked against the
formula computed here by hand on a corpus small enough to do so."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from histutil import Repo

from hindsight.app import open_bank
from hindsight.context import channels as ch
from hindsight.context.corpus import Corpus, _alive, message_text
from hindsight.context.fusion import WEIGHTS, Weights, final, first_stage, gate, normalised
from hindsight.context.named import scope
from hindsight.context.service import Attempt, task_words
from hindsight.errors import ConfigError, NotIndexed

STOCK = '''"""Stock levels of the warehouse."""


def deduct_stock(item, qty):
    """Take qty of item out of the warehouse; fails when not enough is left."""
    left = LEVELS[item] - qty
    if left < 0:
        raise ValueError("not enough")
    LEVELS[item] = left


LEVELS = {}
'''
ORDERS = '''from shop.stock import deduct_stock


def place_order(item, qty):
    deduct_stock(item, qty)
    return {"item": item, "qty": qty}
'''
PAYMENT = '''def charge_card(card, amount):
    """Send the amount to the card processor."""
    return {"card": card, "amount": amount}
'''
REPORT = '''def quarterly_numbers(rows):
    return sum(r["amount"] for r in rows)
'''
LEGACY = '''def convert_currency(amount, rate):
    return amount * rate
'''


def shop(tmp: Path) -> Repo:
    """A shop with six commits: payment changes with stock twice, a rename, a function
    that moved away from the file an old commit changed."""
    r = Repo(tmp / "shop")
    r.write("shop/__init__.py", "")
    r.write("shop/stock.py", STOCK)
    r.write("shop/orders.py", ORDERS)
    r.write("shop/payment.py", PAYMENT)
    r.write("shop/report.py", REPORT)
    r.write("shop/money.py", LEGACY)
    r.commit("Initial shop")
    r.write("shop/stock.py", STOCK.replace("left < 0", "left <= -1"))
    r.write("shop/payment.py", PAYMENT.replace("Send", "Send once"))
    r.commit("Refund when the warehouse runs dry")
    r.write("shop/money.py", LEGACY.replace("amount * rate", "round(amount * rate, 2)"))
    r.commit("Round converted currency to cents")
    r.write("shop/stock.py", STOCK.replace("left < 0", "left <= -1") + "\n# audited\n")
    r.write("shop/payment.py", PAYMENT.replace("Send", "Send once") + "\n# audited\n")
    r.commit("Audit trail for refunds")
    r.mv("shop/report.py", "shop/reporting.py")
    r.commit("Rename report module")
    r.write("shop/fx.py", LEGACY.replace("amount * rate", "round(amount * rate, 2)"))
    r.write("shop/money.py", "RATE = 1\n")
    r.commit("Move currency code to fx")
    return r


def _bank(repo: Repo, history: bool = True):  # type: ignore[no-untyped-def]
    b = open_bank(str(repo.path), repo_root_path=str(repo.path))
    b.code.index(workers=1)
    if history:
        b.history.ingest(all_=True, workers=1)
    return b


def test_code_channel_alone_finds_the_file_whose_words_match(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    with _bank(repo) as b:
        res = b.context.rank("card processor sends the amount twice", k=3)
    assert [f.target for f in res.files][:1] == ["shop/payment.py"]
    top = res.files[0]
    assert top.reasons[0] == "matching code: card, processor, sends, amount"
    assert "code" in top.channels and top.channels["code"] == WEIGHTS.code


def test_similar_past_commit_votes_for_the_files_it_changed(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    with _bank(repo) as b:
        res = b.context.rank("refund again when it runs dry", k=6)
        sha = repo.shas[2]
    paths = [f.target for f in res.files]
    # the words are in no file: only the commits "Refund when the warehouse runs dry" and
    # "Audit trail for refunds" speak of them, and both changed stock and payment (equal
    # scores: by path)
    assert paths[:2] == ["shop/payment.py", "shop/stock.py"]
    assert res.files[0].score == res.files[1].score
    # the others only changed together with those two (in the initial commit)
    assert all(set(f.channels) <= {"cochange", "recent"} for f in res.files[2:])
    assert (f'similar past commit {sha[:10]} (2025-06-15) "Refund when the warehouse runs '
            'dry" changed it') in res.files[0].reasons
    assert set(res.files[0].channels) >= {"commits", "recent"}
    assert "code" not in res.files[0].channels


def test_a_named_symbol_and_its_callers(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    with _bank(repo, history=False) as b:
        res = b.context.rank("make `deduct_stock` atomic", k=5)
    paths = [f.target for f in res.files]
    assert paths[:2] == ["shop/stock.py", "shop/orders.py"]
    assert res.files[0].reasons[0] == "named in the task: `deduct_stock`"
    assert "call graph: calls `deduct_stock`" in res.files[1].reasons
    assert res.symbols[0].target == "shop/stock.py::deduct_stock"
    assert res.symbols[0].reasons[0] == "named in the task: `deduct_stock`"
    assert res.notes[0] == ("no git history in the bank: past commits and co-change were "
                            "not used (hindsight ingest)")


def test_cochange_reason_counts_the_shared_commits(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    with _bank(repo) as b:
        res = b.context.rank("refund again when it runs dry", k=5)
        named = b.context.rank("make `deduct_stock` atomic", k=5)
        weighted = b.context.rank("make `deduct_stock` atomic", k=5,
                                  weights=WEIGHTS.but(cochange=0.5, current=0.0))
    pay = next(f for f in res.files if f.target == "shop/payment.py")
    # stock.py: initial, refund, audit (3 commits); payment changed in all of them
    assert "changed together with shop/stock.py in 3 of its 3 commits" in pay.reasons
    # by default co-change ranks nothing by itself (weight 0, README: Task context)
    assert "shop/payment.py" not in [f.target for f in named.files]
    pay = next(f for f in weighted.files if f.target == "shop/payment.py")
    assert set(pay.channels) == {"cochange", "recent"} and pay.channels["cochange"] == 0.5


def test_rename_is_followed_to_the_current_path(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    with _bank(repo) as b:
        c = b.context.corpus()
        assert c is not None
        init = next(j for j, (sha, _ts, _s) in enumerate(c.commits) if sha == repo.shas[1])
        assert "shop/reporting.py" in [c.files[f] for f in c.cfiles[init]]
        assert "shop/report.py" not in c.files


def test_code_that_moved_away_weakens_the_old_commit_vote(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    with _bank(repo) as b:
        c = b.context.corpus()
        assert c is not None
        j = next(j for j, (sha, _ts, _s) in enumerate(c.commits) if sha == repo.shas[3])
        money = c.file_id("shop/money.py")
        # "Round converted currency" changed convert_currency in money.py, which has
        # since moved to fx.py: the commit's vote for money.py keeps 0 of 1 symbol
        assert c.cfiles[j] == (money,)
        assert c.clive[j] == (0.0,)
        votes = ch.commit_votes(c, [(j, 2.0)], 1.0, 0.0, 1.0)
        assert votes == {}
        assert ch.commit_votes(c, [(j, 2.0)], 1.0, 0.0, 0.0) == {money: 2.0}


def test_memory_and_failed_attempt_channels(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    with _bank(repo) as b:
        m = b.memory.retain("Quarterly numbers must exclude refunded orders",
                            files=["shop/reporting.py"], kind="decision")
        seen: list[tuple[str, int]] = []

        def attempts(text: str, limit: int) -> list[Attempt]:
            seen.append((text, limit))
            return [Attempt("shop/money.py", "", "pytest -k fx: 2 failed (rounding)",
                            "2025-06-16T10:00:00+00:00")]

        b.context.attempts = attempts
        res = b.context.rank("quarterly numbers are wrong", k=5)
    by = {f.target: f for f in res.files}
    assert res.files[0].target == "shop/reporting.py"
    assert (f"memory #{m.id}: Quarterly numbers must exclude refunded orders"
            in by["shop/reporting.py"].reasons)
    assert by["shop/money.py"].reasons[0] == (
        "failed attempt (2025-06-16T10:00:00+00:00): pytest -k fx: 2 failed (rounding)")
    assert seen == [("quarterly numbers are wrong", 10)]
    assert "failed attempts are not recorded in this bank yet" not in res.notes


def test_bad_input_is_one_clear_error(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    with _bank(repo) as b:
        with pytest.raises(ConfigError, match="task: empty"):
            b.context.rank("   ")
        with pytest.raises(ConfigError, match="k 0: from 1 to 100"):
            b.context.rank("stock", k=0)
    with open_bank(str(tmp_path), repo_root_path=str(tmp_path)) as empty, \
            pytest.raises(NotIndexed):
        empty.context.rank("stock")


def test_indexes_are_kept_beside_the_bank_and_updated_per_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hindsight.context.corpus as corpus

    repo = shop(tmp_path)
    with _bank(repo) as b:
        b.context.rank("stock", k=1)
        assert os.path.exists(b.path + ".context")
        assert os.path.exists(b.path + ".context-docs")
    read: list[str] = []
    real = corpus._read
    monkeypatch.setattr(corpus, "_read", lambda root, p: read.append(p) or real(root, p))
    with open_bank(str(repo.path), repo_root_path=str(repo.path)) as b:
        b.context.rank("stock", k=1)
        assert read == []  # current: loaded from the file, nothing read again
        repo.write("shop/report_extra.py", "def totals():\n    return 0\n")
        repo.commit("Add totals")
        b.code.index(workers=1)
        b.history.ingest(workers=1)
        res = b.context.rank("totals", k=1)
    assert read == ["shop/report_extra.py"]
    assert res.files[0].target == "shop/report_extra.py"


def test_a_damaged_cache_is_rebuilt(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    with _bank(repo) as b:
        first = [f.target for f in b.context.rank("warehouse stock", k=3).files]
        Path(b.path + ".context").write_bytes(b"\x00garbage")
        b.context._corpus = None
        again = [f.target for f in b.context.rank("warehouse stock", k=3).files]
    assert again == first


def test_cli_context_json_and_table(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    with _bank(repo):
        pass
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent / "src")}
    run = [sys.executable, "-m", "hindsight", "context", "make `deduct_stock` atomic",
           "--repo-root", str(repo.path), "-k", "2"]
    out = subprocess.run([*run, "--json"], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [f["path"] for f in data["files"]] == ["shop/stock.py", "shop/orders.py"]
    assert data["files"][0]["reasons"][0] == "named in the task: `deduct_stock`"
    assert set(data) == {"task", "confident", "files", "symbols", "notes", "ms"}
    assert data["symbols"][0]["qname"] == "shop/stock.py::deduct_stock"
    table = subprocess.run(run, capture_output=True, text=True, env=env)
    assert table.returncode == 0 and "shop/stock.py" in table.stdout
    bad = subprocess.run([*run[:4], "", "--repo-root", str(repo.path)], capture_output=True,
                         text=True, env=env)
    assert bad.returncode == 2 and bad.stderr.strip() == (
        "hindsight: task: empty; say what is to be done")


# --- the formulas, by hand ------------------------------------------------------------
def _tiny() -> Corpus:
    from array import array

    c = Corpus(files=["a.py", "b.py"], flen=[(2, 1, 10), (2, 2, 4)])
    c.fpost = {"stock": array("I", [0, 0, 1, 3, 1, 0, 0, 1]),
               "card": array("I", [1, 1, 1, 2])}
    c.commits = [("s1", 0, "x"), ("s2", 0, "y"), ("s3", 0, "z")]
    c.cfiles = [(0,), (0, 1), (1,)]
    c.clive = [(1.0,), (1.0, 0.5), (1.0,)]
    c.cn = [1, 2, 3]
    c.clen = [3, 5, 4]
    c.cpost = {"stock": array("I", [0, 1, 1, 2]), "card": array("I", [2, 1])}
    return c


def test_bm25f_is_the_formula() -> None:
    c = _tiny()
    fw = ch.FieldWeights(path=2.0, symbols=1.0, text=1.0, b_path=0.3, b_symbols=0.5,
                         b_text=0.75)
    got = ch.code(c, ["stock", "card"], fw)
    avg = (2.0, 1.5, 7.0)
    idf1 = max(1e-6, math.log((2 - 2 + 0.5) / (2 + 0.5)))  # stock: in both files
    idf2 = max(1e-6, math.log((2 - 1 + 0.5) / (1 + 0.5)))  # card: in one

    def norm(i: int, length: float) -> float:
        b = (0.3, 0.5, 0.75)[i]
        return 1 - b + b * length / avg[i]

    tf_a = 1.0 * 1 / norm(1, 1) + 1.0 * 3 / norm(2, 10)
    tf_b = 1.0 * 1 / norm(2, 4)
    tf_b_card = 2.0 * 1 / norm(0, 2) + 1.0 * 1 / norm(1, 2) + 1.0 * 2 / norm(2, 4)
    assert got[0] == pytest.approx(idf1 * tf_a / (1.2 + tf_a), rel=1e-12)
    assert got[1] == pytest.approx(idf1 * tf_b / (1.2 + tf_b)
                                   + idf2 * tf_b_card / (1.2 + tf_b_card), rel=1e-12)


def test_commit_similarity_votes_and_recency_are_the_formulas() -> None:
    c = _tiny()
    hits = ch.similar_commits(c, ["stock"], 5)
    avg = 4.0
    idf = max(1e-6, math.log((3 - 2 + 0.5) / (2 + 0.5)))

    def bm25(tf: int, length: int) -> float:
        return idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / avg))

    assert hits == [(1, pytest.approx(bm25(2, 5))), (0, pytest.approx(bm25(1, 3)))] or \
        hits == [(0, pytest.approx(bm25(1, 3))), (1, pytest.approx(bm25(2, 5)))]
    votes = ch.commit_votes(c, [(0, 1.0), (1, 4.0)], size_power=1.0)
    assert votes == {0: pytest.approx(1.0 + 2.0), 1: pytest.approx(2.0 * 0.5)}
    # a lift over each file's base rate: both files were changed by 2 of the 3 commits
    hub = ch.commit_votes(c, [(0, 1.0), (1, 4.0)], size_power=1.0, hub_power=1.0)
    assert hub == {0: pytest.approx(3.0 / 2), 1: pytest.approx(1.0 / 2)}
    assert ch.commit_votes(c, [(0, 1.0), (1, 4.0)], size_power=1.0, hub_power=0.5) == {
        0: pytest.approx(3.0 / 2 ** 0.5), 1: pytest.approx(1.0 / 2 ** 0.5)}
    decayed = ch.commit_votes(c, [(0, 1.0)], size_power=0.0, half_life=2.0)
    assert decayed == {0: pytest.approx(2.0 ** (-2 / 2.0))}
    assert ch.recent(c, 1.0) == {0: pytest.approx(0.25 + 0.5), 1: pytest.approx(0.5 + 1.0)}
    cc = ch.cochange(c, {0: 1.0}, top=1)
    assert cc == {1: pytest.approx(1.0 / 2)}  # file 0 in 2 commits, with file 1 in one


def test_fusion_is_the_weighted_sum_of_normalised_channels() -> None:
    w = Weights(code=1.0, commits=0.5, named=2.0, graph=0.0, memories=0.0, attempts=0.0)
    first = first_stage({"code": {0: 4.0, 1: 2.0}, "commits": {1: 3.0}, "named": {2: 1.0},
                         "graph": {0: 9.0}}, w)
    assert first == {0: 1.0, 1: 0.5 + 0.5, 2: 2.0}
    assert normalised({}) == {} and normalised({3: 0.0}) == {}


def test_work_in_progress_prior_is_gated_by_the_tasks_specificity() -> None:
    c = _tiny()  # 3 commits: "stock" in 2 messages, "card" in 1, "zebra" in none
    idf = [max(1e-6, math.log((3 - df + 0.5) / (df + 0.5))) for df in (2, 1, 0)]
    assert ch.specificity(c, ["stock", "card", "zebra", "stock"]) == pytest.approx(
        sum(idf) / idf[2])
    assert ch.specificity(Corpus(), ["stock"]) == 0.0
    w = Weights(recent=0.5, current=2.0, current_half_life=1.0, current_spec=4.0)
    assert gate(w, 0.0) == 2.0 and gate(w, 4.0) == pytest.approx(1.0)
    assert gate(w.but(current=0.0), 0.0) == 0.0
    cur = ch.recent(c, 1.0)  # file 0: 0.25 + 0.5, file 1: 0.5 + 1 (normalised: 0.5, 1)
    got = final({0: 1.0}, {0: 3.0, 1: 1.0}, {}, w, cur, 4.0)
    # both priors add to the files a task-dependent channel found, never rank one alone
    assert got == {0: pytest.approx(1.0 + 0.5 * 1.0 + 1.0 * 0.5)}
    assert final({0: 1.0}, {}, {}, w.but(current=0.0), cur, 0.0) == {0: 1.0}


def test_a_leading_scope_names_a_module() -> None:
    assert [scope(t) for t in (
        "walk: send results in batches", "fix(parser): keep quotes", "fix: typo",
        "build(deps): bump x", "docs: walk", "Fix #12: y", "http://x: y", "plain words",
        "feat(exec)!: drop -X")] == ["walk", "parser", "", "", "", "", "", "", "exec"]


def test_a_task_that_says_little_is_about_the_work_in_progress(tmp_path: Path) -> None:
    repo = shop(tmp_path)  # its last commit moved currency code to shop/fx.py
    on = WEIGHTS.but(current=2.0, current_spec=2.5)  # stronger than the default
    with _bank(repo) as b:
        vague = b.context.rank("amount", k=3, weights=on)
        without = b.context.rank("amount", k=3, weights=WEIGHTS.but(current=0.0))
        default = b.context.rank("amount", k=3)
        detailed = b.context.rank("card processor sends the amount twice", k=3, weights=on)
        scoped = b.context.rank("fx: round half to even", k=3)
        nothing = b.context.rank("formatting", k=3, weights=on)
    # "amount" is in payment, reporting and fx; fx is what the last commit changed
    assert [f.target for f in without.files] == ["shop/payment.py", "shop/fx.py",
                                                 "shop/reporting.py"]
    assert [f.target for f in vague.files] == ["shop/fx.py", "shop/payment.py",
                                               "shop/reporting.py"]
    # "amount" is in no commit message: one rare word, gate 2 / (1 + 1 / 2.5); fx changed
    # in the last commit (1.0), money.py most (in commits 6, 3 and 1: 1 + 2^-3 + 2^-5)
    assert vague.files[0].channels["current"] == pytest.approx(
        2.0 / 1.4 / (1 + 2 ** -3 + 2 ** -5))
    assert "changed in the last commit (work in progress)" in vague.files[0].reasons
    # the default is milder: 1 / (1 + 1 / 0.5)
    assert default.files[0].channels["current"] == pytest.approx(
        1.0 / 3.0 / (1 + 2 ** -3 + 2 ** -5))
    assert [f.target for f in default.files] == ["shop/fx.py", "shop/payment.py",
                                                 "shop/reporting.py"]
    assert detailed.files[0].target == "shop/payment.py"  # the words win
    assert [f.target for f in scoped.files][:1] == ["shop/fx.py"]
    assert scoped.files[0].reasons[0] == "named in the task: `fx`"
    assert nothing.files == []  # a prior alone ranks nothing


def test_trailers_and_alive_share() -> None:
    assert message_text("Fix x\n\nSigned-off-by: A <a@b>\nCo-authored-by: B <b@c>\n"
                        ).strip() == "Fix x"
    assert _alive([], {"f"}) == 1.0
    assert _alive(["f", "g#2", "h"], {"f", "g"}) == pytest.approx(2 / 3)


def test_task_words_map_stems_back() -> None:
    words = task_words("Failing deductions in deductStock")
    assert words["fail"] == "Failing" and words["deduct"] == "deductions"
    assert words["stock"] == "deductStock"


def test_prompt_hook_names_the_files_when_confident(tmp_path: Path) -> None:
    from hookutil import cli, diag, hook, make_env

    env = make_env(tmp_path)
    repo = shop(tmp_path)
    cli(["index"], env, repo.path)
    cli(["ingest", "--all"], env, repo.path)
    on = {**env, "HINDSIGHT_PROMPT_CONTEXT_FILES": "2"}
    ask = {"session_id": "s1", "cwd": str(repo.path),
           "prompt": "the card processor charge_card sends twice"}
    r = hook("user-prompt-submit", ask, on)
    assert (r.returncode, r.stdout) == (0, "")  # its indexes were never built: a hook waits
    assert diag(env)[-1]["context_files"] == []
    cli(["context", "stock", "-k", "1"], env, repo.path)  # builds them
    r = hook("user-prompt-submit", ask, env)
    assert (r.returncode, r.stdout) == (0, "")  # the setting is 0 by default
    assert "context_files" not in diag(env)[-1]
    r = hook("user-prompt-submit", {**ask, "session_id": "s2"}, on)
    text = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert text.startswith('<hindsight-memory kind="task-context">')
    assert text.endswith(
        "Files this task most likely involves, best first (hindsight context):\n"
        "- shop/payment.py: named in the task: `charge_card`; holds what the task quotes: "
        "`charge_card`\n</hindsight-memory>")
    assert diag(env)[-1]["context_files"] == ["shop/payment.py"]
    # a prompt whose best file does not lead clearly names none
    r = hook("user-prompt-submit", {**ask, "session_id": "s3",
                                    "prompt": "refund again when it runs dry"}, on)
    assert (r.returncode, r.stdout) == (0, "")
    assert diag(env)[-1]["context_files"] == []


def test_task_terms_keep_the_words_that_name_code() -> None:
    # fd's "Add support for @%s time format": `time` names src/filter/time.rs (stop 20)
    from hindsight.memory import segment

    assert segment.query_terms("Add support for @%s time format", words=False) == [
        "add", "support", "format"]
    assert segment.query_terms("Add support for @%s time format", words=False,
                               keep=segment.CODE_TERMS) == ["add", "support", "time", "format"]
    assert segment.query_terms("sort the rows before the migration runs down", words=False,
                               keep=segment.CODE_TERMS) == ["sort", "row", "befor", "migrat",
                                                            "run", "down"]
