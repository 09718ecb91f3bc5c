"""A model judge: the ``judge`` check kind's grader (``verifiers.Judge``) on a local or hosted model.

It sends the instruction, the rubric, the agent's answer, the checks evaluated before it and (when the
model takes images and the check asks for it) the final screenshot, and reads a strict JSON reply
``{"score": 0..1, "explanation": "..."}``. A reply that is not that JSON is sent back once with what
was wrong; a second bad reply raises :class:`JudgeReplyError` (the check then fails with the error,
never a silent 0). Replies are cached by the client, so a graded run re-grades the same offline.
"""

from __future__ import annotations

import json
import math
from typing import Any

from verifiers.judge import Judgement, JudgeRequest

from .client import ModelClient, ModelConfig, parse_json_reply

SYSTEM = (
    "You grade the work of an assistant that operated a company's business web applications for a user. "
    "You are given the user's instruction, a rubric, the assistant's final answer, the results of automatic "
    "checks already run on the outcome, and possibly a screenshot of the final screen. Grade only what the "
    "rubric asks, strictly and consistently: 1 means the rubric is fully met, 0 not at all, values between for "
    "partly. Reply with one JSON object and nothing else: {\"score\": <number from 0 to 1>, \"explanation\": "
    "\"<one or two sentences saying why>\"}."
)


MAX_FOUND = 600  # characters of a check's findings shown to the judge


class JudgeReplyError(ValueError):
    """The model did not reply with the JSON asked for, even after being told what was wrong."""


def _checks_text(request: JudgeRequest) -> str:
    if not request.checks:
        return "(none)"
    lines = []
    for c in request.checks:
        mark = "passed" if c.passed else "FAILED"
        text = c.sentence or c.name
        extra = f" ({c.detail})" if c.detail and not c.passed else ""
        found = ""
        if c.actual not in (None, {}, []):  # what the check saw (a record's fields, the answer): evidence for the rubric
            seen = json.dumps(c.actual, ensure_ascii=False, default=str)
            found = f"; found: {seen[:MAX_FOUND] + '...' if len(seen) > MAX_FOUND else seen}"
        lines.append(f"- {mark}: {text}{extra}{found}")
    return "\n".join(lines)


def prompt(request: JudgeRequest) -> str:
    answer = request.answer if request.answer is not None else "(the assistant gave no answer)"
    return (f"Instruction given to the assistant:\n{request.instruction or '(none)'}\n\n"
            f"Rubric (grade this):\n{request.rubric}\n\n"
            f"The assistant's final answer:\n{answer}\n\n"
            f"Automatic checks already run on the outcome:\n{_checks_text(request)}\n\n"
            + ("The screenshot of the final screen is attached.\n\n" if request.screenshot else "")
            + 'Reply with the JSON object only: {"score": <0 to 1>, "explanation": "..."}')


def parse_judgement(text: str) -> Judgement:
    """The judgement in a reply; ValueError saying what is wrong."""
    try:
        data = parse_json_reply(text)
    except ValueError:
        raise ValueError("the reply is not a JSON object") from None
    if not isinstance(data, dict):
        raise ValueError("the reply is JSON but not an object")
    score = data.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or math.isnan(float(score)):
        raise ValueError(f"'score' must be a number from 0 to 1, got {json.dumps(score)}")
    if not 0 <= float(score) <= 1:
        raise ValueError(f"'score' must be from 0 to 1, got {score}")
    explanation = data.get("explanation", "")
    if not isinstance(explanation, str):
        raise ValueError("'explanation' must be a string")
    return Judgement(score=float(score), explanation=explanation.strip())


class ModelJudge:
    """``judge(request) -> Judgement`` on a model (a :class:`ModelClient` or its spec string)."""

    def __init__(self, model: ModelClient | ModelConfig | str) -> None:
        self.client = model if isinstance(model, ModelClient) else ModelClient(model)
        self.name = self.client.name

    def __call__(self, request: JudgeRequest) -> Judgement:
        images = [request.screenshot] if request.screenshot and self.client.images else []
        messages: list[dict[str, Any]] = [{"role": "user", "text": prompt(request), "images": images}]
        scope = {"use": "judge"}
        reply = self.client.complete(SYSTEM, messages, scope=scope)
        try:
            result = parse_judgement(reply.text)
        except ValueError as first:
            messages += [{"role": "assistant", "text": reply.text or "(empty)"},
                         {"role": "user", "text": f"That reply cannot be used: {first}. Reply again with the JSON object only: "
                                                  '{"score": <number from 0 to 1>, "explanation": "..."}'}]
            reply = self.client.complete(SYSTEM, messages, scope=scope)
            try:
                result = parse_judgement(reply.text)
            except ValueError as second:
                raise JudgeReplyError(f"{self.name} did not reply with the JSON asked for, twice ({first}; then {second}): "
                                      f"{reply.text[:200]!r}") from None
        return result.model_copy(update={"judge": self.name, "cached": reply.cached})

    def close(self) -> None:
        self.client.close()


__all__ = ["SYSTEM", "JudgeReplyError", "ModelJudge", "parse_judgement", "prompt"]
