"""Schema fuzzing of the team server's OpenAPI routes (schemathesis, bounded) over real
HTTP: no generated request, valid or not, gets a 5xx answer."""

from __future__ import annotations

from pathlib import Path

from serverutil import call, served, token

EXAMPLES = 25  # per operation, for each of a write and a read token


def test_schema_fuzzing_finds_no_5xx(tmp_path: Path) -> None:
    import schemathesis
    from hypothesis import HealthCheck, given, settings

    home = tmp_path / "hs"
    with served(home) as s:
        write = token(home, "fuzz", "--role", "write", "--team", "qa")
        read = token(home, "peek", "--role", "read")
        assert call(s.url, "POST", "/v1/retain", {"bank": "b", "text": "seed memory"},
                    tok=write)[0] == 200
        schema = schemathesis.openapi.from_url(f"{s.url}/openapi.json")
        failures: list[str] = []
        statuses: list[int] = []
        ops = [r.ok() for r in schema.get_all_operations()]
        assert len(ops) >= 14
        def fuzz(op: object, tok: str) -> None:
            @settings(max_examples=EXAMPLES, deadline=None, database=None,
                      suppress_health_check=list(HealthCheck))
            @given(case=op.as_strategy())  # type: ignore[attr-defined]
            def check(case: object) -> None:
                resp = case.call(base_url=s.url,  # type: ignore[attr-defined]
                                 headers={"Authorization": f"Bearer {tok}"}, timeout=60)
                statuses.append(resp.status_code)
                if resp.status_code >= 500:
                    failures.append(f"{case.method} {case.formatted_path}: "  # type: ignore[attr-defined]
                                    f"{resp.status_code} {resp.text[:300]}")

            check()

        for tok in (write, read):
            for op in ops:
                fuzz(op, tok)
        assert failures == []
        assert len(statuses) >= 2 * len(ops) * 5  # requests were really sent
        assert 200 in statuses and 422 in statuses and 403 in statuses
        assert call(s.url, "GET", "/healthz")[0] == 200
