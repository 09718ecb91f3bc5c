"""Order checks: one change happened before another (``before``), read from the world's change log.

"The approval was obtained before the discount was applied": the first change in the episode that
made a row match ``first`` must come before the first change that made a row match ``then``.
"""

from __future__ import annotations

import json
from typing import Iterator, Literal

from pydantic import Field, model_validator

from .base import CheckSpec, Env, SpecModel, spec_error
from .conditions import Where, match_row, where_phrase, where_refs
from .verdict import Check

_OPS = {"add": ("I",), "update": ("U",), "any": ("I", "U"), "remove": ("D",)}


class Moment(SpecModel):
    """A change to look for: a row of ``table`` that came to match ``where`` (by an ``op``: add,
    update, or any), or a row matching ``where`` that was removed (``op: remove``, matched on the row
    as it was). An update counts only when it changed a value (rewriting a row as it was is no
    change); ``fields`` narrows it to updates that changed one of these fields, and ``was`` to updates
    of a row that matched these conditions before the change ("the deal's close date moved", "the
    approval went from Pending to Approved"). Either makes the moment an update."""

    table: str
    where: Where = Field(default_factory=dict)
    op: Literal["add", "update", "any", "remove"] = "any"
    was: Where = Field(default_factory=dict)
    fields: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _update_only(self) -> Moment:
        if (self.was or self.fields) and self.op in ("add", "remove"):
            raise spec_error("'was' and 'fields' describe updates; use op: update (or leave op out)", "op")
        return self

    def phrase(self, env: Env) -> str:
        w = where_phrase(self.where, env)
        verb = {"add": "was added", "update": "was updated", "any": "was written", "remove": "was removed"}[self.op]
        if self.fields:
            verb = f"had its {', '.join(self.fields)} changed"
        text = f"a {self.table} row" + (f" where {w}" if w else "")
        if self.was:
            text += f" (before: {where_phrase(self.was, env)})"
        return f"{text} {verb}"


class BeforeSpec(CheckSpec):
    """``first`` happened, and before ``then`` (both must happen during the episode). With
    ``optional_then: true`` an episode where ``then`` never happened passes (a guard on an action
    the agent may rightly not take: "if the discount was applied, the approval came first")."""

    kind: Literal["before"] = "before"
    first: Moment
    then: Moment
    optional_then: bool = False

    def default_name(self) -> str:
        return f"before:{self.first.table}:{self.then.table}"

    def describe(self) -> str:
        return self.sentence or f"a {self.first.table} change came before a {self.then.table} change"

    def references(self) -> Iterator[tuple[str, str, str | None]]:
        for part in ("first", "then"):
            m: Moment = getattr(self, part)
            yield f"{part}.table", m.table, None
            yield from where_refs(m.where, m.table, f"{part}.where")
            yield from where_refs(m.was, m.table, f"{part}.was")
            for i, f in enumerate(m.fields):
                yield f"{part}.fields[{i}]", m.table, f

    def evaluate(self, env: Env) -> list[Check]:
        a, b = first_seq(env, self.first), first_seq(env, self.then)
        sentence = env.resolve(self.sentence) if self.sentence else f"{self.first.phrase(env)} before {self.then.phrase(env)}"
        if b is None and self.optional_then:
            detail = None
        elif a is None:
            detail = "the first change never happened"
        elif b is None:
            detail = "the second change never happened"
        elif a > b:
            detail = f"it came after (change #{a} after #{b})"
        else:
            detail = None
        return [self.check(sentence=sentence, passed=detail is None, expected="first before then",
                           actual={"first": a, "then": b}, detail=detail)]


def first_seq(env: Env, moment: Moment) -> int | None:
    """The change log position of the episode's first change that made a row match ``moment``."""
    env.require_fields(moment.table, [*moment.where, *moment.was, *moment.fields])
    start = env.ctx.start_seq or 0
    ops = ("U",) if moment.was or moment.fields else _OPS[moment.op]
    rows = env.conn.execute(
        f"SELECT seq, op, old, new FROM sandbox_changelog WHERE tbl = ? AND seq > ? AND op IN ({','.join('?' * len(ops))}) ORDER BY seq",
        (moment.table, start, *ops))
    for seq, op, old, new in rows:
        if op == "D":  # a removal is matched on the row as it was
            if old and match_row(moment.where, json.loads(old), env, moment.table):
                return int(seq)
            continue
        if not new:
            continue
        after = json.loads(new)
        if op == "U":
            before = json.loads(old) if old else {}
            changed = {k for k, v in after.items() if before.get(k) != v}
            if not changed or (moment.fields and not changed & set(moment.fields)):
                continue
            if moment.was and not match_row(moment.was, before, env, moment.table):
                continue
        if match_row(moment.where, after, env, moment.table):
            return int(seq)
    return None


__all__ = ["BeforeSpec", "Moment", "first_seq"]
