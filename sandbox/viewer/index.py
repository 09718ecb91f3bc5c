"""The run's episode index for the viewer: ``results.jsonl`` read incrementally, filtered, sorted, paged.

Only the one-line results are held in memory (a few hundred bytes per episode); steps are read
per episode page. New lines of a run still in progress are picked up on the next request.
"""

from __future__ import annotations

import fnmatch
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

SORT_KEYS = ("task", "seed", "score", "steps", "duration", "finished")
OUTCOMES = ("passed", "failed", "error")


@dataclass
class Query:
    q: str = ""  # task id glob ("<app>.*close*") or substring
    outcome: str = ""  # passed | failed | error
    app: str = ""
    difficulty: str = ""
    tag: str = ""
    min_score: float | None = None
    max_score: float | None = None
    sort: str = "finished"
    desc: bool = False
    page: int = 1
    per: int = 50


def outcome_of(row: dict[str, Any]) -> str:
    if row.get("outcome") in OUTCOMES:
        return row["outcome"]
    if row.get("error"):
        return "error"
    return "passed" if row.get("passed") else "failed"


class ResultsIndex:
    """Results of one run, kept in step with ``results.jsonl`` by reading only what was appended."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: list[dict[str, Any]] = []
        self.by_id: dict[str, dict[str, Any]] = {}
        self._offset = 0
        self._lock = threading.Lock()

    def refresh(self) -> None:
        with self._lock:
            try:
                size = self.path.stat().st_size
            except FileNotFoundError:
                return
            if size < self._offset:  # rewritten (a resume rebuilt it): read from the start
                self.rows, self.by_id, self._offset = [], {}, 0
            if size == self._offset:
                return
            with open(self.path, "rb") as f:
                f.seek(self._offset)
                data = f.read(size - self._offset)
            end = data.rfind(b"\n") + 1  # leave a line being written for the next refresh
            for line in data[:end].splitlines():
                if not line.strip():
                    continue
                try:
                    row = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                row["outcome"] = outcome_of(row)
                if row.get("id") in self.by_id:  # the same episode twice: the later line wins
                    self.rows = [r for r in self.rows if r.get("id") != row["id"]]
                self.rows.append(row)
                self.by_id[row["id"]] = row
            self._offset += end

    def facets(self) -> dict[str, list[str]]:
        apps, diffs, tags = set(), set(), set()
        for r in self.rows:
            if r.get("app"):
                apps.add(r["app"])
            if r.get("difficulty"):
                diffs.add(str(r["difficulty"]))
            tags.update(r.get("tags") or [])
        return {"app": sorted(apps), "difficulty": sorted(diffs), "tag": sorted(tags)}

    def select(self, q: Query) -> list[dict[str, Any]]:
        rows = self.rows
        if q.q:
            pattern = q.q if any(ch in q.q for ch in "*?[") else f"*{q.q}*"
            rows = [r for r in rows if fnmatch.fnmatchcase(str(r.get("task", "")).lower(), pattern.lower()) or r.get("id") == q.q]
        if q.outcome:
            rows = [r for r in rows if r["outcome"] == q.outcome]
        if q.app:
            rows = [r for r in rows if r.get("app") == q.app]
        if q.difficulty:
            rows = [r for r in rows if str(r.get("difficulty")) == q.difficulty]
        if q.tag:
            rows = [r for r in rows if q.tag in (r.get("tags") or [])]
        if q.min_score is not None:
            rows = [r for r in rows if float(r.get("score") or 0) >= q.min_score]
        if q.max_score is not None:
            rows = [r for r in rows if float(r.get("score") or 0) <= q.max_score]
        key = {
            "task": lambda r: (str(r.get("task")), r.get("seed") or 0),
            "seed": lambda r: (r.get("seed") or 0, str(r.get("task"))),
            "score": lambda r: (float(r.get("score") or 0), str(r.get("task"))),
            "steps": lambda r: (r.get("steps") or 0, str(r.get("task"))),
            "duration": lambda r: (float(r.get("duration_s") or 0), str(r.get("task"))),
        }.get(q.sort)
        if key is not None:
            rows = sorted(rows, key=key, reverse=q.desc)
        elif q.desc:
            rows = list(reversed(rows))
        return rows
