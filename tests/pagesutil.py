"""The fixture repository of the knowledge-page tests: history, branches and memories."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from histutil import Repo, git

from hindsight.app import open_bank

FILES = {
    "README.md": "# Shop\n\nA tiny shop: orders, payments and an HTTP API.\n",
    "pyproject.toml": ('[project]\nname = "shop"\n\n[project.scripts]\nshop = "shop.cli:main"'
                       '\n\n[tool.ruff]\nline-length = 100\n\n[tool.mypy]\nstrict = true\n\n'
                       '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'),
    "shop/__init__.py": '"""Shop: orders and payments."""\n\n__all__ = ["place", "charge"]\n'
                        "from shop.orders import place\nfrom shop.payments import charge\n",
    "shop/orders.py": ('"""Orders: placing and cancelling them."""\n\nfrom shop import payments'
                       '\n\n\ndef place(total):\n    """Place an order."""\n    return '
                       'payments.charge(total)\n\n\ndef cancel(order):\n    return None\n'),
    "shop/payments.py": ('"""Payments: charging cards."""\n\n\ndef charge(total):\n    '
                         'return round(total, 2)\n'),
    "shop/cli.py": ('"""The shop command line."""\n\nimport argparse\n\nfrom shop.orders '
                    'import place\n\n\ndef main():\n    p = argparse.ArgumentParser()\n    '
                    'p.parse_args()\n    place(1)\n'),
    "web/app.py": ('"""HTTP API."""\n\nfrom flask import Flask\n\nfrom shop.orders import '
                   'place\n\napp = Flask(__name__)\n\n\n@app.get("/orders")\ndef orders():\n'
                   '    return []\n\n\n@app.post("/orders")\ndef new_order():\n    return '
                   'place(1)\n'),
    "tests/test_orders.py": ("from shop.orders import place\n\n\ndef test_place():\n    "
                             "assert place(1) == 1\n"),
}


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "HINDSIGHT_HOME": str(home), "HINDSIGHT_EMBEDDER": "hashing"}


def build(base: Path) -> tuple[Path, Path, dict[str, Any]]:
    """The fixture: five commits on main (one a fix naming an issue), a feature branch one
    commit ahead, indexed and ingested; memories: a convention, a decision, a failed
    experience, a lesson anchored to ``shop/payments.py::charge`` that becomes stale, and a
    private note (never on a page). Returns (repository, home, names of the shas)."""
    repo, home = base / "repo", base / "home"
    r = Repo(repo)
    for k, v in FILES.items():
        r.write(k, v)
    shas = {"init": r.commit("Initial shop")}
    r.write("shop/orders.py", FILES["shop/orders.py"].replace("return None", "return order"))
    shas["cancel"] = r.commit("feat(orders): cancel returns the order")
    os.environ["HINDSIGHT_HOME"] = str(home)
    os.environ["HINDSIGHT_EMBEDDER"] = "hashing"
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
        ids = {"convention": bank.memory.retain("We lint with ruff and never use black",
                                                kind="convention").id,
               "decision": bank.memory.retain("We decided to round payments to cents",
                                              kind="decision").id,
               "failure": bank.memory.retain("Refunds failed: the card API timed out",
                                             kind="experience", outcome="failure").id,
               "lesson": bank.memory.retain("Lesson: charge must round before tax",
                                            kind="lesson",
                                            symbols=["shop/payments.py::charge"]).id,
               "private": bank.memory.retain("my private note about orders", kind="convention",
                                             visibility="private", owner="bot").id}
    r.write("shop/payments.py", FILES["shop/payments.py"].replace("round(total, 2)",
                                                                   "round(total * 1.0, 2)"))
    shas["fix"] = r.commit("fix(payments): round the charge (#12)")
    r.write("shop/payments.py", FILES["shop/payments.py"].replace("round(total, 2)",
                                                                   "round(float(total), 2)"))
    shas["fix2"] = r.commit("fix: charge takes strings too")
    git(repo, "checkout", "-q", "-b", "feature/refunds")
    r.write("shop/refunds.py", '"""Refunds."""\n\n\ndef refund(order):\n    return order\n')
    shas["feature"] = r.commit("feat: refunds")
    git(repo, "checkout", "-q", "main")
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
        bank.history.ingest()
    return repo, home, {"shas": shas, "ids": ids, "repo": r}
