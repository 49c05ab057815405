"""Build a git repository with a long, ordinary-looking history quickly (``git
fast-import``): a base of real Python files (a slice of the standard library), then
commits that each edit one to three functions in one or two files, now and then add a
file, rename one, or touch a non-code file together with code. Deterministic for a seed.

It stands in for "a larger repository with real history" where none is on the machine;
its edits are synthetic, the code they edit is real.
"""

from __future__ import annotations

import random
import re
import subprocess
import sysconfig
from pathlib import Path

_RETURN = re.compile(rb"^( +)return\b", re.M)


def base_files(n_files: int, seed: int) -> dict[str, bytes]:
    std = Path(sysconfig.get_paths()["stdlib"])
    cands = sorted(p for p in std.glob("*.py") if 2_000 < p.stat().st_size < 60_000)
    rnd = random.Random(seed)
    rnd.shuffle(cands)
    return {f"pkg/{p.name}": p.read_bytes() for p in cands[:n_files]}


def _edit(text: bytes, rnd: random.Random, n: int) -> bytes:
    """Insert one assignment before a random ``return`` (a change inside one function)."""
    spots = [m for m in _RETURN.finditer(text)]
    if not spots:
        return text + f"\n\ndef _synthetic_{n}():\n    return {n}\n".encode()
    m = rnd.choice(spots)
    line = m.group(1) + f"_edit_{n} = {n}\n".encode()
    return text[:m.start()] + line + text[m.start():]


def build(dest: Path, commits: int, n_files: int = 150, seed: int = 7) -> Path:
    """Create ``dest`` with ``commits`` commits (the first adds the base files)."""
    rnd = random.Random(seed)
    files = base_files(n_files, seed)
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(dest)], check=True)
    ts = 1_600_000_000
    out: list[bytes] = []

    def commit(msg: str, changes: dict[str, bytes | None],
               renames: list[tuple[str, str]] = ()) -> None:  # type: ignore[assignment]
        nonlocal ts
        ts += rnd.randint(600, 86_400)
        data = msg.encode()
        out.append(b"commit refs/heads/main\n")
        out.append(f"author Dev {ts % 7} <dev{ts % 7}@example.com> {ts} +0100\n".encode())
        out.append(f"committer Dev {ts % 7} <dev{ts % 7}@example.com> {ts} +0100\n".encode())
        out.append(f"data {len(data)}\n".encode() + data + b"\n")
        for a, b in renames:
            out.append(f'R "{a}" "{b}"\n'.encode())
        for path, content in changes.items():
            if content is None:
                out.append(f'D "{path}"\n'.encode())
            else:
                out.append(f'M 100644 inline "{path}"\ndata {len(content)}\n'.encode()
                           + content + b"\n")

    commit("import the base", dict(files))
    subjects = ["refactor", "tidy", "handle edge case in", "fix bug in", "speed up",
                "document", "fix crash in", "simplify"]
    for n in range(1, commits):
        paths = sorted(files)
        roll = rnd.random()
        if roll < 0.01:  # rename a file
            a = rnd.choice(paths)
            b = a.replace(".py", f"_{n}.py")
            files[b] = files.pop(a)
            commit(f"rename {a}", {}, [(a, b)])
            continue
        if roll < 0.03:  # add a module
            p = f"pkg/new_{n}.py"
            files[p] = f"def created_{n}(x):\n    return x + {n}\n".encode()
            commit(f"add {p}", {p: files[p]})
            continue
        k = 1 if rnd.random() < 0.7 else 2
        changed: dict[str, bytes | None] = {}
        for p in rnd.sample(paths, k):
            for _ in range(rnd.choice([1, 1, 2, 3])):
                files[p] = _edit(files[p], rnd, n)
            changed[p] = files[p]
        if rnd.random() < 0.1:
            changed["CHANGES.md"] = f"change {n}\n".encode()
        commit(f"{rnd.choice(subjects)} {next(iter(changed))}", changed)
    subprocess.run(["git", "-C", str(dest), "fast-import", "--quiet"], input=b"".join(out),
                   check=True)
    subprocess.run(["git", "-C", str(dest), "checkout", "-q", "-f", "main"], check=True)
    return dest
