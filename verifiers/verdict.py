"""Verdict types: a named check with a human sentence, and the verdict over all checks."""

from __future__ import annotations

import datetime as _dt
import math
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator


def jsonable(value: Any) -> Any:
    """Turn a value into plain JSON data (tuples -> lists, dates -> ISO text, bytes -> a size note)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"<{len(bytes(value))} bytes>"
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, BaseModel):
        return jsonable(value.model_dump(mode="json", by_alias=True, exclude_unset=True))
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        items = [jsonable(v) for v in value]
        return sorted(items, key=lambda v: (str(type(v)), str(v)))
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return str(value)


class Check(BaseModel):
    """The result of one named check.

    ``sentence`` states what should be true ("the opportunity's stage is Closed Won"); ``passed`` says
    whether it is. ``score`` is 1/0 for plain checks and partial for rubric groups and judges.
    ``error`` is set when the check could not be evaluated (it then fails); ``detail`` explains a failure.
    A ``guard`` ("nothing else changed", "not given up", "signed in as the persona") earns no credit:
    it only gates the verdict, and when it fails it caps the score.
    """

    name: str
    sentence: str
    passed: bool
    expected: Any = None
    actual: Any = None
    weight: float = 1.0
    score: float | None = None
    guard: bool = False
    detail: str | None = None
    error: str | None = None
    checks: list[Check] = Field(default_factory=list)

    @field_validator("expected", "actual", mode="before")
    @classmethod
    def _plain(cls, v: Any) -> Any:
        return jsonable(v)

    def model_post_init(self, _ctx: Any) -> None:
        if self.score is None:
            self.score = 1.0 if self.passed else 0.0
        self.score = min(1.0, max(0.0, float(self.score)))

    def failed(self) -> list[Check]:
        """The failing leaf checks under this one (itself when it is a failing leaf)."""
        if self.passed:
            return []
        if not self.checks:
            return [self]
        out = [leaf for c in self.checks for leaf in c.failed()]
        return out or [self]

    def line(self) -> str:
        """One readable line: the sentence, and for a failure what was seen instead."""
        if self.passed:
            return self.sentence
        if self.error:
            return f"{self.sentence} (could not check: {self.error})"
        if self.detail:
            return f"{self.sentence} ({self.detail})"
        if self.actual is not None or self.expected is not None:
            return f"{self.sentence} (actual: {_short(self.actual)})"
        return self.sentence


class Verdict(BaseModel):
    """Whether the episode succeeded, a score in [0, 1], a one-line reason and the checks behind it.

    ``score`` is the weighted share of task progress (the credit checks); a failed guard caps it
    (``capped`` then names the guards). ``passed`` needs every check, guards included.
    """

    passed: bool
    score: float = Field(ge=0.0, le=1.0)
    reason: str
    checks: list[Check] = Field(default_factory=list)
    capped: list[str] = Field(default_factory=list)

    def guards(self) -> list[Check]:
        """Every guard check, at any depth."""
        return [c for c in _walk(self.checks) if c.guard]

    def credit_checks(self) -> list[Check]:
        """The leaf checks that earn credit (task progress), outside any guard."""
        return _credit_leaves(self.checks)

    def failed(self) -> list[Check]:
        return [leaf for c in self.checks for leaf in c.failed()]

    def check(self, name: str) -> Check:
        """Find a check (at any depth) by name."""
        stack = list(self.checks)
        while stack:
            c = stack.pop(0)
            if c.name == name:
                return c
            stack.extend(c.checks)
        raise KeyError(name)

    def explain(self) -> str:
        """A multi-line report: one line per check, indented for groups."""
        lines = [f"{'PASSED' if self.passed else 'FAILED'} score={self.score:.2f}: {self.reason}"]

        def walk(checks: list[Check], depth: int) -> None:
            for c in checks:
                mark = "ok " if c.passed else "FAIL"
                lines.append(f"{'  ' * depth}[{mark}] {c.name}: {c.line()}")
                walk(c.checks, depth + 1)

        walk(self.checks, 1)
        return "\n".join(lines)


def _short(value: Any, limit: int = 160) -> str:
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        text = "; ".join(value)
    else:
        text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def weighted_score(checks: list[Check]) -> float:
    """Weighted mean of the credit checks' scores (guards earn nothing; equal weights when all weights
    are 0). With no credit check at all: 1.0 when every guard holds, else 0.0."""
    credit = [c for c in checks if not c.guard]
    if not credit:
        return 1.0 if all(c.passed for c in checks) else 0.0
    checks = credit
    total = sum(c.weight for c in checks)
    if total <= 0:
        return sum(c.score or 0.0 for c in checks) / len(checks)
    return sum(c.weight * (c.score or 0.0) for c in checks) / total


def make_reason(checks: list[Check], passed: bool, score: float, threshold: float | None = None) -> str:
    """A one-line summary that names what failed."""
    failed = [leaf for c in checks for leaf in c.failed()]
    n = sum(max(1, _count_leaves(c)) for c in checks)
    if not failed:
        return f"all {n} checks passed" if n != 1 else "the check passed"
    head = f"{len(failed)} of {n} checks failed"
    if threshold is not None:
        verb = "reaches" if passed else "is below"
        head = f"score {score:.2f} {verb} the threshold {threshold:.2f}; {head}"
    text = f"{head}: " + "; ".join(c.line() for c in failed[:3])
    if len(failed) > 3:
        text += f"; and {len(failed) - 3} more"
    return text if len(text) <= 400 else text[:397] + "..."


def _walk(checks: list[Check]):
    for c in checks:
        yield c
        yield from _walk(c.checks)


def _credit_leaves(checks: list[Check]) -> list[Check]:
    out: list[Check] = []
    for c in checks:
        if not c.guard:
            out.extend(_credit_leaves(c.checks) if c.checks else [c])
    return out


def failed_guards(checks: list[Check]) -> list[Check]:
    """The guards that failed, at any depth."""
    return [c for c in _walk(checks) if c.guard and not c.passed]


def _count_leaves(c: Check) -> int:
    return sum(_count_leaves(x) for x in c.checks) if c.checks else 1
