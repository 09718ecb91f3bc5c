"""Small timing helpers shared by the benchmarks."""

from __future__ import annotations

import statistics
import time
from typing import Callable


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    if not s:
        return float("nan")
    k = (len(s) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summarize(samples_ms: list[float]) -> dict[str, float]:
    return {"median": statistics.median(samples_ms), "p95": percentile(samples_ms, 0.95), "n": len(samples_ms)}


def time_ms(fn: Callable[[], object], repeat: int, warmup: int = 2) -> list[float]:
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def load_note() -> str:
    """The machine's load while a benchmark ran: ratios are comparable across machines, absolute
    figures only on a quiet one."""
    import os

    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs during the run"
