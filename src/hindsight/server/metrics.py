"""Prometheus metrics of one server process (``GET /metrics``, text format 0.0.4).

Names (``prometheus-client``, a registry of its own per server, so two servers in one
process never mix):

* ``hindsight_retain_total{outcome="success"|"failure"}``: memories retained, retain
  requests failed;
* ``hindsight_recall_total`` and ``hindsight_recall_hits_total`` (recalls returning at
  least one memory); ``hindsight_recall_hit_rate`` = hits / recalls (0 before any);
* ``hindsight_recall_seconds``: recall latency histogram (server side, seconds);
* ``hindsight_memories{bank, status}``: memories per bank and status (open banks);
* ``hindsight_database_bytes{database}``: bytes on disk of the server database and of
  each open bank.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hindsight.server.state import ServerState

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """The counters and histogram, and a collector that reads the bank counts and
    database sizes of ``state`` at each scrape."""

    def __init__(self, state: ServerState) -> None:
        from prometheus_client import CollectorRegistry, Counter, Histogram

        self.registry = CollectorRegistry()
        self.retain = Counter("hindsight_retain", "Memories retained (success) and retain "
                              "requests failed (failure).", ["outcome"],
                              registry=self.registry)
        self.recalls = Counter("hindsight_recall", "Recall requests answered.",
                               registry=self.registry)
        self.recall_hits = Counter("hindsight_recall_hits", "Recalls that returned at least "
                                   "one memory.", registry=self.registry)
        self.recall_seconds = Histogram("hindsight_recall_seconds", "Recall latency in "
                                        "seconds (server side).", buckets=LATENCY_BUCKETS,
                                        registry=self.registry)
        self.counted = [0, 0]  # recalls, recalls with a hit (for the hit rate)
        self._lock = threading.Lock()
        self.registry.register(_Live(state, self))

    def recalled(self, seconds: float, hits: int) -> None:
        """Count one recall that took ``seconds`` and returned ``hits`` memories."""
        self.recalls.inc()
        if hits:
            self.recall_hits.inc()
        self.recall_seconds.observe(seconds)
        with self._lock:
            self.counted[0] += 1
            self.counted[1] += bool(hits)

    def hit_rate(self) -> float:
        with self._lock:
            total, hits = self.counted
        return hits / total if total else 0.0

    def render(self) -> bytes:
        from prometheus_client import generate_latest

        return bytes(generate_latest(self.registry))


_BANK = re.compile(r'(?:bank="|database="bank:)((?:[^"\\]|\\.)*)"')


def only_banks(text: bytes, may_use: Callable[[str], bool]) -> bytes:
    """``text`` (exposition format) without the series of banks ``may_use`` refuses
    (label ``bank``, or ``database="bank:<id>"``; escapes undone before the check)."""
    out = []
    for line in text.decode("utf-8").splitlines():
        m = _BANK.search(line) if not line.startswith("#") else None
        if m is not None:
            bank = re.sub(r"\\(.)", lambda g: "\n" if g.group(1) == "n" else g.group(1),
                          m.group(1))
            if not may_use(bank):
                continue
        out.append(line)
    return ("\n".join(out) + "\n").encode("utf-8")


class _Live:
    """Gauges read at scrape time."""

    def __init__(self, state: ServerState, metrics: Metrics) -> None:
        self.state = state
        self.metrics = metrics

    def describe(self) -> list[Any]:
        """Nothing to check at registration (the gauges are read at each scrape)."""
        return []

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        from hindsight.errors import HindsightError

        rate = GaugeMetricFamily("hindsight_recall_hit_rate",
                                 "Share of recalls that returned at least one memory.")
        rate.add_metric([], self.metrics.hit_rate())
        yield rate
        mem = GaugeMetricFamily("hindsight_memories", "Memories per bank and status.",
                                labels=["bank", "status"])
        size = GaugeMetricFamily("hindsight_database_bytes", "Bytes on disk.",
                                 labels=["database"])
        try:
            for bank, counts in self.state.counts().items():
                for status, n in counts.items():
                    mem.add_metric([bank, status], n)
            for name, n in self.state.database_bytes().items():
                size.add_metric([name], n)
        except HindsightError:
            pass  # a scrape while the database is down still gives the counters
        yield mem
        yield size
