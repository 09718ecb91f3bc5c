"""Composition (all / any / weighted), partial credit, and the optional model judge."""

from __future__ import annotations

import pytest

from verifiers import Judgement, JudgeRequest, build_verifier

WON = {"kind": "state", "table": "crm_opportunity", "where": {"id": 10}, "expect": {"stage": "Closed Won"}}
LOST = {"kind": "state", "table": "crm_opportunity", "where": {"id": 10}, "expect": {"stage": "Closed Lost"}}
ANSWER = {"kind": "answer", "expected": "done"}


@pytest.fixture
def won(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won' WHERE id=10")
    return world


def test_all_gives_share_but_needs_every_check(won):
    v = build_verifier([WON, LOST, ANSWER]).verify(won.context(answer="done"))
    assert not v.passed and v.score == pytest.approx(2 / 3)
    v = build_verifier([{**WON, "weight": 3}, LOST]).verify(won.context())
    assert not v.passed and v.score == 0.75
    assert "stage is Closed Lost" in v.reason and "1 of 2 checks failed" in v.reason


def test_nested_all_group(won):
    v = build_verifier([{"kind": "all", "name": "deal", "checks": [WON, LOST]}, ANSWER]).verify(won.context(answer="done"))
    deal = v.checks[0]
    assert deal.name == "deal" and not deal.passed and deal.score == 0.5
    assert [c.passed for c in deal.checks] == [True, False]
    assert v.score == 0.75 and not v.passed
    assert v.failed()[0].sentence.endswith("stage is Closed Lost")
    assert v.check("deal").checks[1].expected == "Closed Lost"


def test_any(won):
    v = build_verifier([{"kind": "any", "checks": [LOST, WON]}]).verify(won.context())
    assert v.passed and v.score == 1.0
    v = build_verifier([{"kind": "any", "checks": [LOST, {**LOST, "expect": {"stage": "Prospecting"}}]}]).verify(won.context())
    assert not v.passed and v.score == 0.0


def test_weighted_threshold(won):
    spec = {"kind": "weighted", "threshold": 0.7, "checks": [{**WON, "weight": 3}, {**ANSWER, "weight": 1}]}
    v = build_verifier([spec]).verify(won.context(answer="wrong"))
    assert v.passed and v.score == 0.75
    v = build_verifier([{**spec, "threshold": 0.8}]).verify(won.context(answer="wrong"))
    assert not v.passed and v.score == 0.75 and v.checks[0].detail == "score 0.75"


def test_root_threshold(won):
    spec = {"threshold": 0.5, "checks": [WON, LOST]}
    v = build_verifier(spec).verify(won.context())
    assert v.passed and v.score == 0.5 and "reaches the threshold" in v.reason


class FakeJudge:
    def __init__(self, score: float) -> None:
        self.score = score
        self.requests: list[JudgeRequest] = []

    def __call__(self, request: JudgeRequest) -> Judgement:
        self.requests.append(request)
        return Judgement(score=self.score, explanation="looks polite" if self.score >= 0.5 else "rude")


JUDGE = {"kind": "judge", "rubric": "the reply is polite", "threshold": 0.6}


def test_judge_without_judge_fails_clearly(world):
    verifier = build_verifier([JUDGE])
    assert verifier.requires_judge
    v = verifier.verify(world.context())
    assert not v.passed
    assert v.checks[0].error == "this check needs a model judge: pass judge=... to Verifier.verify"


def test_judge_sees_instruction_answer_screenshot_and_other_checks(world):
    judge = FakeJudge(0.8)
    # the judge is listed first but runs last, so it sees the other checks
    v = build_verifier([JUDGE, ANSWER]).verify(
        world.context(answer="done", instruction="Reply politely", final_screenshot=b"png"), judge=judge
    )
    assert v.passed and v.checks[0].score == 0.8 and v.checks[0].actual["explanation"] == "looks polite"
    req = judge.requests[0]
    assert (req.instruction, req.answer, req.screenshot, req.rubric) == ("Reply politely", "done", b"png", "the reply is polite")
    assert [c.name for c in req.checks] == ["answer"]


def test_judge_low_score_and_broken_judge(world):
    v = build_verifier([JUDGE]).verify(world.context(), judge=FakeJudge(0.3))
    assert not v.passed and v.score == pytest.approx(0.3) and "rude" in v.checks[0].detail

    def broken(request):
        raise RuntimeError("model unavailable")

    v = build_verifier([JUDGE]).verify(world.context(), judge=broken)
    assert not v.passed and "model unavailable" in v.checks[0].error
    v = build_verifier([JUDGE]).verify(world.context(), judge=lambda r: {"score": 7})
    assert not v.passed and "the judge failed" in v.checks[0].error


def test_optional_judge_leaves_the_verdict_to_the_other_checks(world):
    optional = {**JUDGE, "optional": True}
    # Without a judge: reported as not graded, earning nothing; the answer check decides.
    v = build_verifier([optional, ANSWER]).verify(world.context(answer="done"))
    assert v.passed and v.score == 1.0
    judged = v.checks[0]
    assert judged.guard and judged.actual == {"graded": False} and judged.detail == "not graded: no model judge was given"
    v = build_verifier([optional, ANSWER]).verify(world.context(answer="nope"))
    assert not v.passed and v.score == 0.0
    # With a judge it is graded as any judge check: a low score fails the task.
    v = build_verifier([optional, ANSWER]).verify(world.context(answer="done"), judge=FakeJudge(0.3))
    assert not v.passed and v.score == pytest.approx(0.65)  # (0.3 + 1) / 2


def test_a_generous_judge_earns_nothing_when_a_fact_check_failed(world):
    # Doing nothing (or answering wrong) must score 0 however kindly a judge would read the result:
    # the rubric is not sent to the judge when a check it depends on failed.
    judge = FakeJudge(1.0)
    v = build_verifier([{**JUDGE, "optional": True}, ANSWER]).verify(world.context(answer="nope"), judge=judge)
    assert not v.passed and v.score == 0.0 and judge.requests == []
    judged = v.checks[0]
    assert judged.score == 0.0 and judged.actual == {"graded": False}
    assert judged.detail == "not graded: the checks it depends on failed (answer)"
    v = build_verifier([JUDGE, ANSWER]).verify(world.context(answer="done"), judge=judge)
    assert v.passed and v.score == 1.0 and len(judge.requests) == 1
