"""Metrics with the TrustGraph names (its section 8.1): counters, gauges, histograms.

Readable as a DataFrame (``proj.metrics.frame()``) and exportable in the
Prometheus text exposition format (``proj.metrics.prometheus()``).
"""

from __future__ import annotations

import bisect
import threading
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["METRICS", "Metrics"]

Kind = Literal["counter", "gauge", "histogram"]

#: name -> (kind, help)
METRICS: dict[str, tuple[Kind, str]] = {
    "agent_tool_group_requests_total": ("counter", "Requests by tool group"),
    "agent_tool_group_availability": ("gauge", "Tools available per group"),
    "agent_filtered_tools_count": ("histogram", "Tool count after group+state filtering"),
    "agent_state_transitions_total": ("counter", "State transitions by tool"),
    "agent_workflow_duration_seconds": ("histogram", "Time spent in each state"),
    "agent_state_availability": ("gauge", "Tools available per state"),
    "agent_group_access_denied_total": ("counter", "Unauthorized group access"),
    "agent_invalid_state_transition_total": ("counter", "Invalid state transitions"),
    "agent_privilege_escalation_attempts_total": ("counter",
                                                  "Requests or spawns beyond their ceiling"),
}
COUNT_BUCKETS = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000)
SECONDS_BUCKETS = (0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900)

Labels = tuple[tuple[str, str], ...]


class Metrics:
    """Thread-safe metric values keyed by name and labels."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[tuple[str, Labels], float] = {}
        self._histograms: dict[tuple[str, Labels], list[float]] = {}

    @staticmethod
    def _key(name: str, labels: dict[str, str]) -> tuple[str, Labels]:
        if name not in METRICS:
            raise KeyError(f"unknown metric {name!r}")
        return name, tuple(sorted((k, str(v)) for k, v in labels.items()))

    def inc(self, name: str, amount: float = 1.0, **labels: str) -> None:
        """Add to a counter."""
        key = self._key(name, labels)
        with self._lock:
            self._values[key] = self._values.get(key, 0.0) + amount

    def set(self, name: str, value: float, **labels: str) -> None:
        """Set a gauge."""
        key = self._key(name, labels)
        with self._lock:
            self._values[key] = float(value)

    def observe(self, name: str, value: float, **labels: str) -> None:
        """Record one observation of a histogram."""
        key = self._key(name, labels)
        with self._lock:
            self._histograms.setdefault(key, []).append(float(value))

    def value(self, name: str, **labels: str) -> float:
        """A counter's or gauge's value (0 when never set); a histogram's count."""
        key = self._key(name, labels)
        with self._lock:
            if key in self._histograms:
                return float(len(self._histograms[key]))
            return self._values.get(key, 0.0)

    def total(self, name: str) -> float:
        """A counter summed over all its labels (a histogram: its observation count)."""
        with self._lock:
            if METRICS[name][0] == "histogram":
                return float(sum(len(v) for (n, _), v in self._histograms.items() if n == name))
            return sum(v for (n, _), v in self._values.items() if n == name)

    def frame(self) -> pd.DataFrame:
        """One row per metric and label set (histograms: value = count, plus sum)."""
        import pandas as pd

        rows = []
        with self._lock:
            for (name, labels), value in sorted(self._values.items()):
                rows.append({"name": name, "kind": METRICS[name][0], "labels": dict(labels),
                             "value": value, "sum": None})
            for (name, labels), obs in sorted(self._histograms.items()):
                rows.append({"name": name, "kind": "histogram", "labels": dict(labels),
                             "value": float(len(obs)), "sum": float(sum(obs))})
        return pd.DataFrame(rows, columns=["name", "kind", "labels", "value", "sum"])

    def prometheus(self) -> str:
        """The Prometheus text exposition format (version 0.0.4)."""
        lines: list[str] = []
        with self._lock:
            values = dict(self._values)
            hists = {k: list(v) for k, v in self._histograms.items()}
        for name, (kind, help_text) in METRICS.items():
            lines.append(f"# HELP {name} {help_text}")
            lines.append(f"# TYPE {name} {kind}")
            if kind != "histogram":
                for (n, labels), value in sorted(values.items()):
                    if n == name:
                        lines.append(f"{name}{_labels(labels)} {_num(value)}")
                continue
            buckets = SECONDS_BUCKETS if name.endswith("_seconds") else COUNT_BUCKETS
            for (n, labels), obs in sorted(hists.items()):
                if n != name:
                    continue
                ordered = sorted(obs)
                for bound in buckets:
                    count = bisect.bisect_right(ordered, bound)
                    le = (*labels, ("le", _num(bound)))
                    lines.append(f"{name}_bucket{_labels(le)} {count}")
                lines.append(f"{name}_bucket{_labels((*labels, ('le', '+Inf')))} {len(obs)}")
                lines.append(f"{name}_sum{_labels(labels)} {_num(sum(obs))}")
                lines.append(f"{name}_count{_labels(labels)} {len(obs)}")
        return "\n".join(lines) + "\n"


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _labels(labels: Labels) -> str:
    if not labels:
        return ""
    def esc(v: str) -> str:
        return v.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')
    return "{" + ",".join(f'{k}="{esc(v)}"' for k, v in labels) + "}"
