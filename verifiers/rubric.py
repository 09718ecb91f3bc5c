"""Composition: ``all``, ``any`` and ``weighted`` groups of checks, with partial credit.

- ``all``: passes when every check passes; its score is the weighted share of checks passed.
- ``any``: passes when one check passes; its score is the best check's score.
- ``weighted``: its score is the weighted mean of the checks' scores; passes at ``threshold``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field

from .answer import AnswerSpec, InfeasibleSpec
from .base import CheckSpec, Env
from .db import ChangesSpec, StateSpec
from .document import SectionSpec, TableSpec
from .judge import JudgeSpec
from .order import BeforeSpec
from .values import EvaluationError
from .verdict import Check, weighted_score
from .trajectory import ForbiddenSpec, RouteSpec
from .visual import VisualSpec


def run_check(spec: CheckSpec, env: Env) -> list[Check]:
    """Evaluate one spec; a spec that cannot be evaluated yields one failing check with the reason."""
    try:
        out = spec.evaluate(env)
    except EvaluationError as e:
        out = [spec.check(sentence=_safe_describe(spec, env), passed=False, error=str(e))]
    except Exception as e:  # noqa: BLE001 - never crash on odd data; report it on the check
        out = [spec.check(sentence=_safe_describe(spec, env), passed=False, error=f"{type(e).__name__}: {e}")]
    if not isinstance(spec, GroupSpec):
        env.results.extend(out)
    return out


def _safe_describe(spec: CheckSpec, env: Env) -> str:
    try:
        return env.resolve(spec.describe())
    except Exception:  # noqa: BLE001
        return spec.describe()


def needs_judge(spec: CheckSpec) -> bool:
    return isinstance(spec, JudgeSpec) or any(needs_judge(c) for c in spec.children())


def run_all(specs: list[CheckSpec], env: Env) -> list[Check]:
    """Evaluate specs in order, except that judges go last (so they see every other check)."""
    results: dict[int, list[Check]] = {}
    order = [i for i, s in enumerate(specs) if not needs_judge(s)] + [i for i, s in enumerate(specs) if needs_judge(s)]
    for i in order:
        results[i] = run_check(specs[i], env)
    return [c for i in range(len(specs)) for c in results[i]]


def _all_guards(spec: CheckSpec, flat: list[Check]) -> bool:
    """A group of guards is a guard itself: it must not turn into credit."""
    return spec.guard or (bool(flat) and all(c.guard for c in flat))


class GroupSpec(CheckSpec):
    checks: list[AnyCheck] = Field(min_length=1)

    def children(self) -> list[CheckSpec]:
        return list(self.checks)

    def default_name(self) -> str:
        return self.kind


class AllSpec(GroupSpec):
    """Every check must pass; the score is the weighted share passed."""

    kind: Literal["all"] = "all"

    def describe(self) -> str:
        return self.sentence or "all of these hold"

    def evaluate(self, env: Env) -> list[Check]:
        flat = run_all(self.checks, env)
        return [self.check(sentence=env.resolve(self.describe()), passed=all(c.passed for c in flat),
                           score=weighted_score(flat), checks=flat, guard=_all_guards(self, flat))]


class AnySpec(GroupSpec):
    """At least one check must pass; the score is the best one's."""

    kind: Literal["any"] = "any"

    def describe(self) -> str:
        return self.sentence or "at least one of these holds"

    def evaluate(self, env: Env) -> list[Check]:
        flat = run_all(self.checks, env)
        credit = [c for c in flat if not c.guard] or flat
        return [self.check(sentence=env.resolve(self.describe()), passed=any(c.passed for c in flat),
                           score=max((c.score or 0.0 for c in credit), default=0.0), checks=flat,
                           guard=_all_guards(self, flat))]


class WeightedSpec(GroupSpec):
    """Checkpoints with weights; passes when the weighted score reaches ``threshold``."""

    kind: Literal["weighted"] = "weighted"
    threshold: float = Field(1.0, ge=0, le=1)

    def describe(self) -> str:
        return self.sentence or f"the weighted score of these checkpoints is at least {self.threshold:.2f}"

    def evaluate(self, env: Env) -> list[Check]:
        flat = run_all(self.checks, env)
        score = weighted_score(flat)
        ok = score >= self.threshold - 1e-9
        return [self.check(sentence=env.resolve(self.describe()), passed=ok, score=score, checks=flat,
                           expected={"min_score": self.threshold}, actual={"score": round(score, 6)},
                           detail=None if ok else f"score {score:.2f}", guard=_all_guards(self, flat))]


AnyCheck = Annotated[
    Union[StateSpec, ChangesSpec, SectionSpec, TableSpec, AnswerSpec, InfeasibleSpec, VisualSpec, JudgeSpec, ForbiddenSpec, RouteSpec, BeforeSpec, AllSpec,
          AnySpec, WeightedSpec],
    Field(discriminator="kind"),
]

KINDS: dict[str, type[CheckSpec]] = {
    "state": StateSpec,
    "changes": ChangesSpec,
    "section": SectionSpec,
    "table": TableSpec,
    "answer": AnswerSpec,
    "infeasible": InfeasibleSpec,
    "visual": VisualSpec,
    "judge": JudgeSpec,
    "forbidden": ForbiddenSpec,
    "route": RouteSpec,
    "before": BeforeSpec,
    "all": AllSpec,
    "any": AnySpec,
    "weighted": WeightedSpec,
}

for _m in (AllSpec, AnySpec, WeightedSpec):
    _m.model_rebuild()


def walk(spec: Any, path: str):
    """(path, spec) for a spec and everything under it."""
    yield path, spec
    for i, child in enumerate(spec.children()):
        yield from walk(child, f"{path}.checks[{i}]" if path else f"checks[{i}]")
