"""Errors of the task layer, each naming the file, the field and the problem."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Iterable


class TaskFileError(ValueError):
    """A malformed task file. ``problems`` are lines such as ``params.opp.sql: required``."""

    def __init__(self, path: Path | str, problems: list[str]) -> None:
        self.path = Path(path)
        self.problems = list(problems)
        shown = "\n".join(f"  {p}" for p in self.problems)
        super().__init__(f"{_rel(self.path)}: invalid task file\n{shown}")


class UnknownTask(LookupError):
    """A task id that no task file defines; the message lists the closest ids."""

    def __init__(self, task_id: str, known: Iterable[str]) -> None:
        known = sorted(known)
        self.task_id = task_id
        self.close = difflib.get_close_matches(task_id, known, n=5, cutoff=0.5)
        if not self.close:  # fall back to ids sharing a word
            words = {w for w in task_id.replace(".", "-").split("-") if len(w) > 2}
            self.close = [k for k in known if words & set(k.split("-"))][:5]
        hint = f"; did you mean: {', '.join(self.close)}" if self.close else ""
        super().__init__(f"unknown task {task_id!r}{hint} ({len(known)} tasks; `sandbox tasks` lists them)")

    def __str__(self) -> str:  # KeyError-style quoting would hide the message
        return self.args[0]


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
