"""An optional model judge: a protocol the caller implements, and a ``judge`` check kind that uses it.

Nothing here calls a network or a model; a judge is supplied at verify time
(``verifier.verify(ctx, judge=my_judge)``), or for the whole process with :func:`use_judge` (what
``sandbox run --judge`` and ``sandbox validate --judge`` do with ``sandbox.models.ModelJudge``). Without one, a ``judge`` check fails with a clear error,
unless it is ``optional``: then it is reported as not graded (a guard that earns nothing), so the
task's deterministic checks carry the verdict and ``sandbox validate`` proves them without a model.
"""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from .base import CheckSpec, Env
from .verdict import Check


class JudgeRequest(BaseModel):
    """What a judge sees: the instruction, the rubric to grade against, the answer, the final
    screenshot (PNG bytes) and the checks evaluated before it."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    instruction: str | None = None
    rubric: str
    answer: str | None = None
    screenshot: bytes | None = None
    checks: list[Check] = Field(default_factory=list)
    params: dict = Field(default_factory=dict)


class Judgement(BaseModel):
    """A judge's score in [0, 1] and its explanation."""

    score: float = Field(ge=0.0, le=1.0)
    explanation: str = ""
    judge: str | None = None  # which judge (a model's "kind:model"), recorded in the verdict
    cached: bool | None = None  # a model judge's reply came from its cache


_default: Judge | None = None


def use_judge(judge: Judge | None) -> Judge | None:
    """Make ``judge`` the process's judge for verify calls given none (None: back to no judge);
    returns the previous one."""
    global _default
    previous, _default = _default, judge
    return previous


def default_judge() -> Judge | None:
    """The judge set by :func:`use_judge`, if any."""
    return _default


@runtime_checkable
class Judge(Protocol):
    """Anything callable as ``judge(request) -> Judgement`` (a function or an object)."""

    def __call__(self, request: JudgeRequest) -> Judgement: ...


class JudgeSpec(CheckSpec):
    """A model judge grades the episode against ``rubric``; passes when its score reaches ``threshold``.
    The check's score is the judge's score (partial credit)."""

    kind: Literal["judge"] = "judge"
    rubric: str
    threshold: float = Field(0.5, ge=0, le=1)
    screenshot: bool = True
    # Without a judge: False fails the check (the rubric is part of the verdict); True reports it as
    # not graded and leaves the verdict to the other checks.
    optional: bool = False

    def default_name(self) -> str:
        return "judge"

    def describe(self) -> str:
        return self.sentence or f"a judge finds that {self.rubric}"

    def evaluate(self, env: Env) -> list[Check]:
        rubric = env.resolve(self.rubric)
        sentence = env.resolve(self.sentence) if self.sentence else f"a judge finds that {rubric}"
        if env.judge is None and self.optional:
            return [self.check(sentence=sentence, passed=True, guard=True, expected={"min_score": self.threshold},
                               actual={"graded": False}, detail="not graded: no model judge was given")]
        if env.judge is None:
            return [self.check(sentence=sentence, passed=False, expected={"min_score": self.threshold},
                               error="this check needs a model judge: pass judge=... to Verifier.verify")]
        # A rubric grades the quality of a correct outcome: with a fact check failed before it, there is
        # nothing to grade (a generous judge must not earn a no-op or a wrong answer credit).
        failed = [c.name for c in env.results if not c.passed]
        if failed:
            return [self.check(sentence=sentence, passed=False, score=0.0, expected={"min_score": self.threshold},
                               actual={"graded": False},
                               detail=f"not graded: the checks it depends on failed ({', '.join(failed)})")]
        request = JudgeRequest(
            instruction=env.ctx.instruction,
            rubric=rubric,
            answer=env.ctx.answer,
            screenshot=env.ctx.final_screenshot if self.screenshot else None,
            checks=list(env.results),
            params=env.ctx.params,
        )
        try:
            raw = env.judge(request)
            result = raw if isinstance(raw, Judgement) else Judgement.model_validate(raw)
        except Exception as e:  # noqa: BLE001 - a failing judge is a failed check, not a crash
            return [self.check(sentence=sentence, passed=False, expected={"min_score": self.threshold},
                               error=f"the judge failed: {type(e).__name__}: {e}")]
        ok = result.score >= self.threshold
        actual = {"score": result.score, "explanation": result.explanation}
        actual.update({k: v for k, v in (("judge", result.judge), ("cached", result.cached)) if v is not None})
        return [self.check(
            sentence=sentence, passed=ok, score=result.score, expected={"min_score": self.threshold},
            actual=actual,
            detail=None if ok else f"judge score {result.score:.2f}: {result.explanation}",
        )]
