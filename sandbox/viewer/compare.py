"""Comparing runs: the same episodes (task, seed, repeat) of several runs side by side."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any

from .runs import RunView


@dataclass
class Row:
    id: str
    task: str
    seed: int
    cells: list[dict[str, Any] | None]  # one results line per run, None where the run lacks the episode

    @property
    def differ(self) -> bool:
        """The runs disagree on this episode: outcome, score, or one of them lacks it."""
        if any(c is None for c in self.cells):
            return True
        outcomes = {c.get("outcome") for c in self.cells}
        scores = {round(float(c.get("score") or 0), 4) for c in self.cells}
        return len(outcomes) > 1 or len(scores) > 1

    def pair(self) -> tuple[int, int] | None:
        """Two runs to open side by side: the first two that differ on it, else the first two that have it."""
        have = [i for i, c in enumerate(self.cells) if c is not None]
        if len(have) < 2:
            return None
        for i in have:
            for j in have:
                if j > i and (self.cells[i]["outcome"], self.cells[i].get("score")) != (self.cells[j]["outcome"], self.cells[j].get("score")):
                    return i, j
        return have[0], have[1]


def compare_rows(runs: list[RunView]) -> list[Row]:
    """Every episode id of any run, ordered by task and seed."""
    for rv in runs:
        rv.index.refresh()
    ids: dict[str, tuple[str, int]] = {}
    for rv in runs:
        for r in rv.index.rows:
            ids.setdefault(r["id"], (str(r.get("task", "")), int(r.get("seed") or 0)))
    rows = [Row(i, task, seed, [rv.index.by_id.get(i) for rv in runs]) for i, (task, seed) in ids.items()]
    rows.sort(key=lambda r: (r.task, r.seed, r.id))
    return rows


def filter_rows(rows: list[Row], q: str = "", differ: bool = False) -> list[Row]:
    """``q`` keeps tasks matching a glob or containing the text; ``differ`` the rows where runs differ."""
    if q:
        pattern = q if any(ch in q for ch in "*?[") else f"*{q}*"
        rows = [r for r in rows if fnmatch.fnmatchcase(r.task.lower(), pattern.lower()) or r.id == q]
    if differ:
        rows = [r for r in rows if r.differ]
    return rows
