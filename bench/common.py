"""Helpers shared by the bench scripts: timing, percentiles, RSS, JSON output."""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def pct(values: list[float], p: float) -> float:
    """Percentile ``p`` (0-100) by linear interpolation (numpy's default method)."""
    if not values:
        return float("nan")
    v = sorted(values)
    k = (len(v) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def summary_ms(samples_s: list[float]) -> dict[str, float]:
    ms = [s * 1000 for s in samples_s]
    return {"p50_ms": round(pct(ms, 50), 3), "p95_ms": round(pct(ms, 95), 3),
            "mean_ms": round(statistics.fmean(ms), 3), "n": len(ms)}


def peak_rss_mb(children: bool = False) -> float:
    who = resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF
    return round(resource.getrusage(who).ru_maxrss / 1024, 1)


def timed(fn: Any, *args: Any, **kwargs: Any) -> tuple[float, Any]:
    t = time.perf_counter()
    r = fn(*args, **kwargs)
    return time.perf_counter() - t, r


def machine() -> dict[str, Any]:
    return {"cpus": os.cpu_count(), "python": platform.python_version(),
            "machine": platform.machine(), "date": time.strftime("%Y-%m-%d %H:%M:%S %z")}


def write(name: str, data: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return path
