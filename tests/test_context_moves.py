"""Task context follows the code: a past commit's vote for a file goes to where the code
it changed lives now — a function that moved to another file without a git rename, a file
rewritten under another name (deleted and added in one commit, too unlike for git to call
it a rename). A real git repository with a scripted history; exact values."""

from __future__ import annotations

from pathlib import Path

import pytest
from histutil import Repo

from hindsight.app import open_bank
from hindsight.context import channels as ch
from hindsight.context.corpus import _homes, _moved, _replacing
from hindsight.context.fusion import WEIGHTS

MAIN = '''from app.walk import walk_tree


def parse_flags(argv):
    out = {}
    for a in argv:
        if a.startswith("--"):
            out[a[2:]] = True
    return out


def run(argv):
    return walk_tree(parse_flags(argv))
'''
MAIN_AFTER = '''from app.cli import parse_flags
from app.walk import walk_tree


def run(argv):
    return walk_tree(parse_flags(argv))
'''
WALK = '''def walk_tree(flags):
    return sorted(flags)
'''
OPTS = '''DEFAULTS = {"depth": 3}


def load_defaults(profile):
    merged = dict(DEFAULTS)
    merged.update(profile or {})
    return merged
'''
SETTINGS = '''class Settings:
    """Options of a run, read from a dictionary."""

    def __init__(self, depth, colour):
        self.depth = depth
        self.colour = colour

    @classmethod
    def from_profile(cls, data):
        return cls(int(data.get("depth", 3)), str(data.get("colour", "auto")))
'''


def tool(tmp: Path) -> Repo:
    """Five commits: a flag fix in main.py, a preference fix in opts.py, parse_flags
    moved from main.py to a new cli.py (main.py stays), opts.py rewritten as
    settings.py (deleted and added in one commit, with a README)."""
    r = Repo(tmp / "tool")
    r.write("app/__init__.py", "")
    r.write("app/main.py", MAIN)
    r.write("app/walk.py", WALK)
    r.write("app/opts.py", OPTS)
    r.commit("Initial tool")
    r.write("app/main.py", MAIN.replace('a.startswith("--")', 'a[:2] in ("--", "/-")'))
    r.commit("Accept the legacy spelling of the verbose switch")
    r.write("app/opts.py", OPTS.replace("profile or {}", "profile or {'quiet': 1}"))
    r.commit("Honour the quiet preference of the user profile")
    r.write("app/main.py", MAIN_AFTER)
    r.write("app/cli.py", MAIN.replace("from app.walk import walk_tree\n\n\n", "")
            .split("\n\n\ndef run")[0].replace('a.startswith("--")',
                                               'a[:2] in ("--", "/-")') + "\n")
    r.commit("Move flag parsing out of main")
    r.rm("app/opts.py")
    r.write("app/settings.py", SETTINGS)
    r.write("README.md", "tool\n")
    r.commit("Options become a class")
    return r


def _bank(repo: Repo):  # type: ignore[no-untyped-def]
    b = open_bank(str(repo.path), repo_root_path=str(repo.path))
    b.code.index(workers=1)
    b.history.ingest(all_=True, workers=1)
    return b


def test_a_moved_function_takes_the_old_commits_vote_to_its_new_file(tmp_path: Path
                                                                     ) -> None:
    repo = tool(tmp_path)
    with _bank(repo) as b:
        c = b.context.corpus()
        assert c is not None
        j = next(j for j, (sha, _t, _s) in enumerate(c.commits) if sha == repo.shas[2])
        main, cli = c.file_id("app/main.py"), c.file_id("app/cli.py")
        # the fix changed parse_flags in main.py, which main.py no longer defines: no
        # direct vote is left there, the whole share went with parse_flags to cli.py
        assert [c.files[f] for f in c.cfiles[j]] == ["app/main.py"]
        assert c.clive[j] == (0.0,)
        assert c.cmoved[j] == (cli, 1.0)
        assert ch.commit_votes(c, [(j, 2.0)], 1.0, 0.0, 0.5) == {}
        assert ch.commit_votes(c, [(j, 2.0)], 1.0, 0.0, 0.5, follow=0.5) == {cli: 1.0}
        res = b.context.rank("the legacy spelling of the verbose switch is refused again",
                             k=3)
        before = b.context.rank("the legacy spelling of the verbose switch is refused "
                                "again", k=3, weights=WEIGHTS.but(follow=0.0))
    assert main is not None
    assert res.files[0].target == "app/cli.py"
    assert res.files[0].reasons[0] == (
        f'similar past commit {repo.shas[2][:10]} (2025-06-15) "Accept the legacy '
        'spelling of the verbose switch" changed code that is here now')
    assert "app/cli.py" not in [f.target for f in before.files]


def test_a_file_rewritten_under_another_name_passes_its_commits_on(tmp_path: Path
                                                                   ) -> None:
    repo = tool(tmp_path)
    with _bank(repo) as b:
        c = b.context.corpus()
        assert c is not None
        j = next(j for j, (sha, _t, _s) in enumerate(c.commits) if sha == repo.shas[3])
        settings = c.file_id("app/settings.py")
        # opts.py is gone (no file now): the commit that changed it votes only through
        # the file that replaced it (README.md is not of its language)
        assert c.cfiles[j] == ()
        assert c.cmoved[j] == (settings, 1.0)
        res = b.context.rank("quiet preference of the user profile is ignored", k=3)
    assert res.files[0].target == "app/settings.py"
    assert "commits" in res.files[0].channels


def test_replacing_homes_and_moved_shares() -> None:
    # same language, same directory first; more than five heirs is a restructuring
    assert _replacing(["src/cli.rs", "Makefile"], ["src/app.rs"]) == {
        "src/app.rs": ["src/cli.rs"]}
    assert _replacing(["src/a/x.rs", "src/cli.rs"], ["src/app.rs"]) == {
        "src/app.rs": ["src/cli.rs"]}
    assert _replacing(["lib/x.rs", "lib/y.rs"], ["src/app.rs"]) == {
        "src/app.rs": ["lib/x.rs", "lib/y.rs"]}
    assert _replacing([f"lib/m{i}.rs" for i in range(6)], ["src/app.rs"]) == {}
    assert _replacing(["README.md"], ["src/app.rs"]) == {}
    assert _homes({"a.py": {"f", "g"}, "b.py": {"g", "h"}}) == {"f": "a.py", "h": "b.py"}
    out: dict[int, float] = {}
    # four symbols changed: one still here, one moved to file 7 (twice: name#2), one
    # defined in two files now (no single home)
    _moved(["keep", "go", "go#2", "shared"], {"keep"}, {"go": 7, "keep": 3}, 0.5, out)
    assert out == {7: pytest.approx(2 * 0.5 / 4)}


def test_the_newest_similar_commits_weigh_more() -> None:
    from hindsight.context.corpus import Corpus

    c = Corpus(files=["a.py"], commits=[("s1", 0, "x"), ("s2", 0, "y"), ("s3", 0, "z")])
    # half-life 2: the newest commit (age 0) counts 1 + 3 times, the oldest (age 2)
    # 1 + 3 / 2: the older, better match stays first (5 > 4); with half-life 0.5 the
    # oldest keeps 1 + 3 / 16 and the newest passes it; off with boost 0
    got = ch.continuing(c, [(0, 2.0), (2, 1.0)], boost=3.0, half_life=2.0)
    assert got[0][0] == 0 and got[0][1] == pytest.approx(5.0)
    assert got[1][0] == 2 and got[1][1] == pytest.approx(4.0)
    assert ch.continuing(c, [(0, 2.0), (2, 1.0)], boost=3.0, half_life=0.5) == [
        (2, pytest.approx(4.0)), (0, pytest.approx(2.0 * (1 + 3 * 2.0 ** -4)))]
    assert ch.continuing(c, [(0, 2.0)], boost=0.0, half_life=2.0) == [(0, 2.0)]


def test_trailers_of_a_task_are_no_evidence(tmp_path: Path) -> None:
    from hindsight.context.service import task_text

    assert task_text("Fix x\n\nSigned-off-by: Ann <ann@walk.org>\nCo-authored-by: B <b@c>\n"
                     "Change-Id: I12\n") == "Fix x\n\n\n\n\n"
    repo = tool(tmp_path)
    plain = "the legacy spelling of the verbose switch is refused again"
    with _bank(repo) as b:
        signed = b.context.rank(plain + "\n\nSigned-off-by: Walk Tree <walk@tree.org>", k=5)
        res = b.context.rank(plain, k=5)
        terms = b.context.evidence(plain + "\n\nSigned-off-by: Walk Tree <walk@tree.org>"
                                   ).terms
    # "walk" and "tree" would match app/walk.py (walk_tree); the trailer is dropped
    assert "walk" not in terms and "tree" not in terms
    assert [f.target for f in signed.files] == [f.target for f in res.files]
    assert "app/walk.py" not in [f.target for f in signed.files]
