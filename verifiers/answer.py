"""Checks on the agent's final answer, and on whether it reported the task infeasible.

Matching modes (``match``):

- ``exact``: the answer, stripped of surrounding whitespace, equals ``expected`` (a list: any of them).
- ``normalized`` (default): equal after NFKC, case folding, punctuation/symbols -> spaces and
  whitespace collapsing ("  Acme, Corp. " == "acme corp"), or stated as whole words in a short
  answer that does not hedge ("The account is Acme Corp." passes; "Acme Corp or Globex" fails).
  ``among`` (a list, or ``{table, field, where}`` read from the final world) names the candidates:
  an answer that also names another candidate fails. A list: any of them.
- ``phone``: the answer holds one phone number whose digits equal the expected one's (a leading
  US country code and the formatting do not matter).
- ``email``: the answer holds one e-mail address, equal ignoring case.
- ``date``: the answer holds one calendar date (ISO, 3/16/2026, Mar 16, 2026, 16 March 2026) equal
  to the expected date.
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
from urllib.parse import unquote_plus

from pydantic import model_validator

from .answer_types import (
    as_date, dates_in, emails_in, mentions, phone_digits, phones_in, text_in_short_answer, without_dates,
)
from .base import CheckSpec, Env, SpecModel, spec_error
from .conditions import Where, match_row
from .values import EvaluationError, fmt, has_params, normalize_text, numbers_close
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


class Candidates(SpecModel):
    """Candidate values read from the final world: ``field`` of the ``table`` rows matching ``where``."""

    table: str
    field: str
    where: Where = {}


class AnswerSpec(CheckSpec):
    """The agent's final answer matches ``expected`` (see the module notes for ``match`` modes)."""

    kind: Literal["answer"] = "answer"
    match: Literal["exact", "normalized", "number", "set", "regex", "contains", "phone", "email", "date"] = "normalized"
    expected: Any
    among: list[Any] | str | Candidates | None = None
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

    def references(self):  # noqa: ANN201 - see CheckSpec
        if isinstance(self.among, Candidates):
            yield "among.table", self.among.table, None
            yield "among.field", self.among.table, self.among.field

    def _candidates(self, env: Env) -> list[str]:
        if self.among is None:
            return []
        if isinstance(self.among, Candidates):
            env.require_fields(self.among.table, [self.among.field, *self.among.where])
            rows = [r for r in env.rows(self.among.table) if match_row(self.among.where, r, env, self.among.table)]
            return [str(r[self.among.field]) for r in rows if r[self.among.field] not in (None, "")]
        values = env.resolve(self.among)
        if isinstance(values, str):
            raise EvaluationError("'among' must be a list of candidates or {table, field, where}")
        return [str(v) for v in values if v not in (None, "")]

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
        if self.match in ("phone", "email", "date"):
            return f"the answer gives the {'e-mail address' if self.match == 'email' else self.match + (' number' if self.match == 'phone' else '')} {shown}"
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
        if passed and self.among is not None and self.match in ("normalized", "contains", "exact"):
            alts = [str(v) for v in (expected if isinstance(expected, list) else [expected])]
            others = [c for c in self._candidates(env)
                      if mentions(answer, c) and not any(normalize_text(c) == normalize_text(a) for a in alts)
                      and not any(mentions(a, c) for a in alts)]
            if others:
                passed, detail = False, f"the answer also names {', '.join(sorted(set(others))[:3])}"
        return [self.check(sentence=sentence, passed=passed, expected=expected, actual=answer,
                           detail=None if passed else detail)]

    def _match(self, answer: str, expected: Any) -> tuple[bool, str | None]:
        alts = expected if isinstance(expected, list) else [expected]
        if self.match != "number":
            alts = [v if isinstance(v, str) else fmt(v) for v in alts]  # YAML numbers/dates read as text
        if self.match == "exact":
            return answer.strip() in [str(v).strip() for v in alts], "the answer differs"
        if self.match == "normalized":
            results = [text_in_short_answer(answer, str(v)) for v in alts]
            ok = [r for r in results if r[0]]
            return (True, None) if ok else results[0]
        if self.match == "phone":
            got_phones = phones_in(answer)
            if len(got_phones) != 1:
                return False, "no phone number in the answer" if not got_phones else f"the answer holds {len(got_phones)} phone numbers, not one"
            wanted = {phone_digits(str(v)) for v in alts}
            got_phone = got_phones[0]
            return got_phone in wanted or got_phone.split("x")[0] in wanted, f"read {got_phone}"
        if self.match == "email":
            got_emails = emails_in(answer)
            if len(got_emails) != 1:
                return False, "no e-mail address in the answer" if not got_emails else f"the answer holds {len(got_emails)} addresses, not one"
            return got_emails[0] in [str(v).strip().casefold() for v in alts], f"read {got_emails[0]}"
        if self.match == "date":
            got_dates = dates_in(answer)
            if len(got_dates) != 1:
                return False, "no date in the answer" if not got_dates else f"the answer holds {len(got_dates)} dates, not one"
            return got_dates[0] in [as_date(v) for v in alts], f"read {got_dates[0].isoformat()}"
        if self.match == "number":
            got = parse_number(without_dates(answer))
            if got is None:
                n = len(_NUMBER_TOKEN.findall(without_dates(answer)))
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


class Evidence(SpecModel):
    """A sign in the trajectory that the agent looked for something: it ``typed`` the text (or a
    distinctive part of it, 4 characters or more; a tool call's text arguments count as typed), or
    ``visited`` a URL containing the text."""

    typed: str | None = None
    visited: str | None = None

    @model_validator(mode="after")
    def _one(self) -> Evidence:
        if (self.typed is None) == (self.visited is None):
            raise spec_error("evidence is one of {typed: text} or {visited: url part}")
        return self

    def found(self, steps: list[dict[str, Any]], env: Env) -> bool:
        if self.typed is not None:
            want = normalize_text(str(env.resolve(self.typed)))
            for text in _typed_texts(steps):
                got = normalize_text(text)
                if got and (want in got or (len(got) >= min(4, len(want)) and f" {got} " in f" {want} ")):
                    return True
            return False
        want_url = unquote_plus(str(env.resolve(self.visited))).casefold()
        return any(want_url in unquote_plus(str(s.get("url") or "")).casefold() for s in steps)

    def phrase(self, env: Env) -> str:
        if self.typed is not None:
            return f"typed {fmt(env.resolve(self.typed))}"
        return f"opened a page at {env.resolve(self.visited)}"


def _typed_texts(steps: list[dict[str, Any]]) -> list[str]:
    out = []
    for s in steps:
        action = s.get("action") or {}
        if isinstance(action, dict):
            for key in ("text", "value"):
                if isinstance(action.get(key), str):
                    out.append(action[key])
            if action.get("action") == "tool_call" and isinstance(action.get("arguments"), dict):
                out += [v for v in action["arguments"].values() if isinstance(v, str)]
    return out


class InfeasibleSpec(CheckSpec):
    """The agent reported the task infeasible (``expected: true``, the default) or did not (``false``).

    ``reason`` lists phrases of which the agent's reason must mention one (what is missing, e.g. the
    record's name); ``looked`` lists evidence of which one must be in the trajectory (the agent
    searched for or opened the missing thing), so a blind give-up fails. ``expected: false`` is a
    guard. A verifier without any infeasible check adds a failing guard when the agent reported
    infeasible, so a feasible task never passes by giving up.
    """

    kind: Literal["infeasible"] = "infeasible"
    expected: bool = True
    reason: list[str] = []
    looked: list[Evidence] = []

    @model_validator(mode="after")
    def _guard_when_false(self) -> InfeasibleSpec:
        if not self.expected:
            self.guard = True
            if self.reason or self.looked:
                raise spec_error("'reason' and 'looked' apply to expected: true", "reason" if self.reason else "looked")
        return self

    def default_name(self) -> str:
        return "infeasible"

    def describe(self) -> str:
        return self.sentence or (
            "the agent reported the task infeasible" if self.expected else "the agent did not report the task infeasible"
        )

    def evaluate(self, env: Env) -> list[Check]:
        got = bool(env.ctx.infeasible)
        reason = env.ctx.infeasible_reason or ""
        sentence = env.resolve(self.sentence) if self.sentence else self.describe()
        if not self.expected or not got:
            return [self.check(
                sentence=sentence, passed=got == self.expected, expected=self.expected, actual=got,
                detail=None if got == self.expected else (
                    f"the agent reported infeasible: {reason or 'no reason given'}" if got else "the agent did not report infeasible"
                ),
            )]
        problems = []
        phrases = [str(env.resolve(p)) for p in self.reason]
        if phrases:
            sentence += f", saying what is missing ({' or '.join(fmt(p) for p in phrases)})"
            if not any(mentions(reason, p) for p in phrases):
                problems.append(f"the reason does not name it: {reason or 'no reason given'}")
        if self.looked:
            sentence += " after looking for it (" + " or ".join(e.phrase(env) for e in self.looked) + ")"
            if not any(e.found(env.ctx.steps, env) for e in self.looked):
                problems.append("the trajectory shows no search for it: the agent gave up without looking")
        return [self.check(
            sentence=sentence, passed=not problems, expected=True, actual=reason or True,
            detail="; ".join(problems) or None,
        )]
