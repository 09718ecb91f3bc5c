"""Aggregates over ``results.jsonl`` lines: success and mean score by app, difficulty and tag."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable

DIMENSIONS = ("app", "difficulty", "tag")


def block(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    passed = sum(1 for r in rows if r.get("passed"))
    return {
        "n": n,
        "passed": passed,
        "success": passed / n if n else 0.0,
        "score": sum(float(r.get("score") or 0) for r in rows) / n if n else 0.0,
        "steps": sum(r.get("steps") or 0 for r in rows) / n if n else 0.0,
        "ms_per_step": sum(float(r.get("ms_per_step") or 0) for r in rows) / n if n else 0.0,
        "duration": sum(float(r.get("duration_s") or 0) for r in rows) / n if n else 0.0,
        "errors": sum(1 for r in rows if r.get("outcome") == "error"),
    }


def summarize(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """``{"all": block, "by": {"app": {name: block}, "difficulty": {...}, "tag": {...}}}``."""
    rows = list(rows)
    groups: dict[str, dict[str, list[dict[str, Any]]]] = {d: defaultdict(list) for d in DIMENSIONS}
    for r in rows:
        groups["app"][str(r.get("app") or "-")].append(r)
        groups["difficulty"][str(r.get("difficulty") or "-")].append(r)
        for t in r.get("tags") or []:
            groups["tag"][str(t)].append(r)
    return {"all": block(rows), "by": {d: {k: block(v) for k, v in sorted(g.items())} for d, g in groups.items()}}


def summary_tables(rows: Iterable[dict[str, Any]], title: str = "Results") -> list[Any]:
    """Rich tables: overall, then by app, difficulty and tag."""
    from rich.table import Table

    s = summarize(rows)
    tables = []
    for dim in (None, *DIMENSIONS):
        groups = {"all": s["all"]} if dim is None else s["by"][dim]
        if dim == "tag" and not groups:
            continue
        t = Table(title=title if dim is None else None, title_justify="left", show_edge=False, pad_edge=False)
        t.add_column(dim or "", style="bold")
        for col in ("episodes", "success", "mean score", "steps", "ms/step", "errors"):
            t.add_column(col, justify="right")
        for name, b in groups.items():
            t.add_row(name, str(b["n"]), f"{100 * b['success']:.0f}% ({b['passed']})", f"{b['score']:.2f}",
                      f"{b['steps']:.1f}", f"{b['ms_per_step']:.0f}", str(b["errors"]))  # fmt: skip
        tables.append(t)
    return tables
