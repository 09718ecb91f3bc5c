"""Checks on the agent's final answer, and on whether it reported the task infeasible.

Matching modes (``match``):

- ``exact``: the answer, stripped of surrounding whitespace, equals ``expected`` (a list: any of them).
- ``normalized`` (default): equal after NFKC, case folding, punctuation/symbols -> spaces and
  whitespace collapsing ("  Acme, Corp. " == "acme corp"). A list: any of them.
- ``number``: the answer holds one number equal to ``expected`` within ``tol`` (absolute) or
  ``rel_tol``; default tolerance 1e-6. Accepted forms: ``1234.5``, ``1,234.50``, ``$1,234.50``,
  ``-3``, ``(1,234.50)`` (negative), ``45%`` (read as 45), suffixes ``k``/``m``/``b``/``bn`` and the
  words thousand/million/billion (``1.2k`` is 1200, so it passes only if the tolerance allows it).
  Text around a single number is fine ("The total is $1,234.50."); several numbers fail. European
  decimal commas ("1.234,50") are not supported. A list: any of them.
- ``set``: items split on commas, semicolons and new lines (leading bullets and numbering removed),
  normalized, compared order-free as sets; ``ordered: true`` compares as a sequence.
- ``regex``: ``re.search`` (``fullmatch: true`` for the whole answer); case-insensitive unless
  ``case_sensitive: true``.
- ``contains``: the normalized answer contains every normalized ``expected`` phrase (word-bounded).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Literal

from pydantic import model_validator

from .base import CheckSpec, Env, spec_error
from .values import fmt, has_params, normalize_text, numbers_close
from .verdict import Check

_SUFFIX = {"k": 1e3, "m": 1e6, "mm": 1e6, "b": 1e9, "bn": 1e9, "thousand": 1e3, "million": 1e6, "billion": 1e9}
_CURRENCY = "$€£¥₹"
_NUMBER_TOKEN = re.compile(
    r"(?<![\w.])"
    r"(?P<neg>[-−]|\()?\s*"
    r"(?:[A-Z]{3}\s?)?[" + _CURRENCY + r"]?\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s?(?P<word>thousand|million|billion)\b|(?P<suf>bn|mm|[kmb])(?![A-Za-z]))?"
    r"(?P<pct>\s?%)?"
    r"(?P<close>\))?",
    re.IGNORECASE,
)


def parse_number(text: str) -> float | None:
    """The number in ``text`` when it holds exactly one, else None (see the module notes)."""
    text = unicodedata.normalize("NFKC", text).strip()
    matches = list(_NUMBER_TOKEN.finditer(text))
    if len(matches) != 1:
        return None
    m = matches[0]
    value = float(m.group("num").replace(",", ""))
    scale = (m.group("word") or m.group("suf") or "").lower()
    value *= _SUFFIX.get(scale, 1.0)
    neg = m.group("neg")
    if neg and (neg != "(" or m.group("close")):
        value = -value
    return value


def split_items(text: str) -> list[str]:
    """Items of a list answer: split on , ; and new lines; bullets and numbering removed; normalized."""
    items = []
    for part in re.split(r"[,;\n]", text):
        part = re.sub(r"^\s*(?:[-*•]+|\d+[.)])\s+", "", part)
        norm = normalize_text(part)
        if norm:
            items.append(norm)
    return items


class AnswerSpec(CheckSpec):
    """The agent's final answer matches ``expected`` (see the module notes for ``match`` modes)."""

    kind: Literal["answer"] = "answer"
    match: Literal["exact", "normalized", "number", "set", "regex", "contains"] = "normalized"
    expected: Any
    tol: float | None = None
    rel_tol: float | None = None
    ordered: bool = False
    case_sensitive: bool = False
    fullmatch: bool = False

    @model_validator(mode="after")
    def _valid(self) -> AnswerSpec:
        values = self.expected if isinstance(self.expected, list) else [self.expected]
        if not values or any(v is None for v in values):
            raise spec_error("'expected' needs a value", "expected")
        if self.match == "number":
            for v in values:
                if not has_params(v) and not isinstance(v, (int, float)) and parse_number(str(v)) is None:
                    raise spec_error(f"'{v}' is not a number", "expected")
        if self.match == "regex":
            for v in values:
                if not has_params(v):
                    try:
                        re.compile(str(v))
                    except re.error as e:
                        raise spec_error(f"invalid regular expression: {e}", "expected") from None
        return self

    def default_name(self) -> str:
        return "answer"

    def _sentence(self, expected: Any) -> str:
        items = expected if isinstance(expected, list) else [expected]
        shown = " or ".join(fmt(v) for v in items)
        if self.match == "number":
            tol = f" (within {fmt(self.tol)})" if self.tol else f" (within {self.rel_tol:.0%})" if self.rel_tol else ""
            return f"the answer is the number {shown}{tol}"
        if self.match == "set":
            return f"the answer lists {'in order ' if self.ordered else ''}{fmt(items)}"
        if self.match == "regex":
            return f"the answer matches /{' or '.join(str(v) for v in items)}/"
        if self.match == "contains":
            return f"the answer mentions {' and '.join(fmt(v) for v in items)}"
        return f"the answer is {shown}"

    def describe(self) -> str:
        return self.sentence or self._sentence(self.expected)

    def evaluate(self, env: Env) -> list[Check]:
        expected = env.resolve(self.expected)
        sentence = env.resolve(self.sentence) if self.sentence else self._sentence(expected)
        answer = env.ctx.answer
        if answer is None or not str(answer).strip():
            return [self.check(sentence=sentence, passed=False, expected=expected, actual=answer,
                               detail="no answer was given")]
        answer = str(answer)
        passed, detail = self._match(answer, expected)
        return [self.check(sentence=sentence, passed=passed, expected=expected, actual=answer,
                           detail=None if passed else detail)]

    def _match(self, answer: str, expected: Any) -> tuple[bool, str | None]:
        alts = expected if isinstance(expected, list) else [expected]
        if self.match != "number":
            alts = [v if isinstance(v, str) else fmt(v) for v in alts]  # YAML numbers/dates read as text
        if self.match == "exact":
            return answer.strip() in [str(v).strip() for v in alts], "the answer differs"
        if self.match == "normalized":
            return normalize_text(answer) in [normalize_text(str(v)) for v in alts], "the answer differs"
        if self.match == "number":
            got = parse_number(answer)
            if got is None:
                n = len(_NUMBER_TOKEN.findall(answer))
                return False, "no number in the answer" if n == 0 else f"the answer holds {n} numbers, not one"
            for v in alts:
                want = float(v) if isinstance(v, (int, float)) else parse_number(str(v))
                if want is not None and numbers_close(got, want, self.tol, self.rel_tol):
                    return True, None
            return False, f"read {fmt(got)}"
        if self.match == "set":
            want = split_items(expected) if isinstance(expected, str) else [normalize_text(str(v)) for v in alts]
            got = split_items(answer)
            if self.ordered:
                return got == want, f"read {got}"
            missing = sorted(set(want) - set(got))
            extra = sorted(set(got) - set(want))
            parts = ([f"missing {', '.join(missing)}"] if missing else []) + ([f"unexpected {', '.join(extra)}"] if extra else [])
            return not parts, "; ".join(parts)
        if self.match == "regex":
            flags = 0 if self.case_sensitive else re.IGNORECASE
            fn = re.fullmatch if self.fullmatch else re.search
            return any(fn(str(v), answer.strip(), flags) for v in alts), "the answer does not match"
        # contains
        if self.case_sensitive:
            missing = [str(v) for v in alts if str(v) not in answer]
        else:
            text = f" {normalize_text(answer)} "
            missing = [str(v) for v in alts if f" {normalize_text(str(v))} " not in text]
        return not missing, f"does not mention {', '.join(missing)}"


class InfeasibleSpec(CheckSpec):
    """The agent reported the task infeasible (``expected: true``, the default) or did not (``false``).

    A verifier without any infeasible check adds a failing check when the agent reported infeasible,
    so a feasible task never passes by giving up.
    """

    kind: Literal["infeasible"] = "infeasible"
    expected: bool = True

    def default_name(self) -> str:
        return "infeasible"

    def describe(self) -> str:
        return self.sentence or (
            "the agent reported the task infeasible" if self.expected else "the agent did not report the task infeasible"
        )

    def evaluate(self, env: Env) -> list[Check]:
        got = bool(env.ctx.infeasible)
        reason = env.ctx.infeasible_reason
        return [self.check(
            sentence=env.resolve(self.sentence) if self.sentence else self.describe(),
            passed=got == self.expected,
            expected=self.expected,
            actual=got,
            detail=None if got == self.expected else (
                f"the agent reported infeasible: {reason}" if got else "the agent did not report infeasible"
            ),
        )]
