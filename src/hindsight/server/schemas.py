"""Request bodies of the ``/v1`` routes (pydantic; their JSON schemas are the OpenAPI
document). Bounds are the CLI's where it has them; unknown fields are refused (422 naming
the field), so a misspelt filter is never silently ignored."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Bank = Annotated[str, Field(min_length=1, max_length=200, description="Bank id.")]
Short = Annotated[str, Field(max_length=200)]
Path = Annotated[str, Field(min_length=1, max_length=2000)]
Kind = Annotated[str, Field(max_length=40)]
Outcome = Literal["", "success", "failure", "partial"]
Source = Literal["human", "api", "conversation", "commit", "tool"]
Anchor = Annotated[list[Annotated[str, Field(max_length=2000)]],
                   Field(min_length=3, max_length=3,
                         description="[path, symbol, ast_hash] as the client's index has it")]
MAX_TEXT = 1_000_000  # characters of one memory or query (the body limit is 8 MiB)


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BankOnly(_Body):
    bank: Bank


class RetainBody(_Body):
    """One memory; ``anchors`` (from the client's code index) and ``files``/``symbols``
    (``path::name``) anchor it."""

    bank: Bank
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
    kind: Kind = ""
    tags: Annotated[list[Short], Field(max_length=100)] = []
    files: Annotated[list[Path], Field(max_length=100)] = []
    symbols: Annotated[list[Path], Field(max_length=100)] = []
    anchors: Annotated[list[Anchor], Field(max_length=100)] = []
    outcome: Outcome = ""
    supersedes: Annotated[int | None, Field(ge=1, le=2**62)] = None
    source: Source = "api"
    session: Short = ""
    occurred: Annotated[str, Field(max_length=64, description="ISO 8601; empty: now")] = ""
    context: Annotated[str, Field(max_length=100_000)] = ""
    visibility: Literal["private", "team", "public"] = "team"
    confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0
    commit_sha: Annotated[str, Field(max_length=64)] = ""
    ref: Short = ""


class BatchItem(RetainBody):
    """An item of a batch: a memory without its own bank."""

    bank: Bank = "-"


class Batch(_Body):
    """Up to 1,000 memories; ``idempotency_key`` (or header ``Idempotency-Key``) makes a
    retry return the first answer."""

    bank: Bank
    items: Annotated[list[BatchItem], Field(min_length=1, max_length=1000)]
    idempotency_key: Annotated[str | None, Field(min_length=1, max_length=200,
                                                 pattern=r"^[\x21-\x7e]+$")] = None


class RecallBody(_Body):
    """A recall with the CLI's filters; ``since``/``until`` ISO 8601 with an offset;
    ``dense`` false skips the vector channel; ``explain`` adds each channel's rank."""

    bank: Bank
    text: Annotated[str, Field(max_length=MAX_TEXT)]
    scene: Annotated[str, Field(max_length=10_000)] = ""
    files: Annotated[list[Path], Field(max_length=200)] = []
    symbols: Annotated[list[Path], Field(max_length=200)] = []
    kinds: Annotated[list[Kind], Field(max_length=20)] = []
    tags: Annotated[list[Short], Field(max_length=50)] = []
    since: Annotated[str | None, Field(max_length=64)] = None
    until: Annotated[str | None, Field(max_length=64)] = None
    k: Annotated[int, Field(ge=1, le=1000)] = 10
    budget: Annotated[int | None, Field(ge=1, le=10_000_000)] = None
    rerank: bool = False
    explain: bool = False
    dense: bool = True
    fusion: Literal["zscore", "rrf"] = "zscore"


class ReflectBody(_Body):
    bank: Bank
    question: Annotated[str, Field(min_length=1, max_length=10_000)]
    k: Annotated[int, Field(ge=1, le=200)] = 20


class ForgetBody(_Body):
    bank: Bank
    reason: Annotated[str, Field(max_length=2000)] = ""


class ImportBody(_Body):
    """JSONL lines as ``GET /v1/export`` gives them, one memory each."""

    bank: Bank
    lines: Annotated[list[Annotated[str, Field(max_length=MAX_TEXT)]],
                     Field(max_length=10_000)]


Str = Annotated[str, Field(max_length=2000)]
RecordLinkBody = Annotated[list[Str], Field(min_length=6, max_length=6, description=(
    "[path, local qualified name, role (changed|test|callee), change, old hash, new hash]"))]


class RecordFields(_Body):
    """One execution record as the client's checkout made it (``RecordService``): the
    stored fields but ``agent`` (the token's); ``fingerprint`` makes a retry store it
    once; ``observation`` is the JSON of ``models.Observation``."""

    fingerprint: Annotated[str, Field(min_length=1, max_length=64)]
    tool: Annotated[str, Field(min_length=1, max_length=40)]
    command: Annotated[str, Field(min_length=1, max_length=20_000)]
    started_at: Annotated[str, Field(max_length=64)]
    started_ts: Annotated[float, Field(ge=0, le=1e11, allow_inf_nan=False)]  # Unix seconds
    duration_ms: Annotated[int | None, Field(ge=0, le=2**53)] = None
    exit_code: Annotated[int | None, Field(ge=-2**31, le=2**31 - 1)] = None
    outcome: Literal["success", "failure", "interrupted", "unknown"]
    observation: Annotated[str, Field(max_length=200_000)]
    diff_summary: Annotated[str, Field(max_length=20_000)] = ""
    scope: Literal["", "tests", "suite"] = ""
    root: Str = ""
    branch: Short = ""
    head: Annotated[str, Field(max_length=64)] = ""
    cwd: Str = ""
    session: Short = ""
    feedback: Annotated[str, Field(max_length=2000)] = ""
    links: Annotated[list[RecordLinkBody], Field(max_length=2000)] = []

    @field_validator("started_at")
    @classmethod
    def _iso(cls, v: str) -> str:
        """ISO 8601 with an offset, as the CLI writes it (attempts sort and show it)."""
        from datetime import datetime

        try:
            when = datetime.fromisoformat(v)
        except ValueError:
            raise ValueError("an ISO 8601 date and time with its offset") from None
        if when.tzinfo is None:
            raise ValueError("an ISO 8601 date and time with its offset")
        return v
    files: Annotated[list[tuple[Str, Annotated[int, Field(ge=0)], Annotated[int, Field(
        ge=0)]]], Field(max_length=5000)] = []


class RecordBody(RecordFields):
    """``POST /v1/records``: one record (:class:`RecordFields`) of ``bank``."""

    bank: Bank


class RecordsBody(_Body):
    """``POST /v1/records/batch``: up to 1,000 records of ``bank``, stored in order (each
    is counted against the earlier ones, as a checkout stores them)."""

    bank: Bank
    records: Annotated[list[RecordFields], Field(min_length=1, max_length=1000)]
