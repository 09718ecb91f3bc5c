"""Generic adversaries: the cheats every task must fail, built from any template without writing them.

`sandbox validate` runs them beside a template's own near-misses, with the score they must get: 0.

- ``adv-give-up``: reports the task infeasible at once with a bare reason (on an infeasible task, a
  blind give-up that neither looked nor said what is missing).
- ``adv-stuffed-answer``: the right answer hedged with a decoy ("X or Y"), on tasks graded on an answer.
- ``adv-unrelated-edit``: the oracle's solution plus an edit of a record the task does not concern.
- ``adv-mass-one-wrong``: the oracle's solution of a mass change, then one of its rows set to a wrong value.
- ``adv-signed-out``: the oracle's solution, then signing out (the episode must end as its persona).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

from .instance import Solution, TaskInstance
from .model import AnswerStep, Infeasible, TERMINAL_STEPS

ADVERSARY = "adversary"
GIVE_UP_REASON = "no"

SendFn = Callable[[dict[str, Any]], Awaitable[Any]]


@dataclass
class Adversary:
    """A solution plus what it does after the oracle's steps (``after``) on the episode's world or browser.

    ``prepare(world_path)`` runs at the start of the episode (after set-up) and returns what ``after``
    needs (e.g. the rows that matched a mass change at the start)."""

    solution: Solution
    prepare: Callable[[Path], Any] | None = None
    after: Callable[[Path, Any, SendFn, Any], Awaitable[None]] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.solution.name


def adversaries(inst: TaskInstance, template_world: Path) -> list[Adversary]:
    """The generic adversaries that apply to ``inst`` (``template_world``: its seed's template file)."""
    out = [_give_up()]
    stuffed = _stuffed_answer(inst)
    if stuffed is not None:
        out.append(stuffed)
    edit = _unrelated_edit(inst, template_world)
    if edit is not None:
        out.append(edit)
    out += _mass_one_wrong(inst, template_world)
    if inst.persona:
        out.append(_signed_out(inst))
    return out


def _solution(name: str, steps: list[Any], description: str, via_oracle: bool = False) -> Solution:
    return Solution(name=name, kind=ADVERSARY, steps=steps, description=description, score=(0.0, 0.0))


def _give_up() -> Adversary:
    return Adversary(_solution("adv-give-up", [Infeasible(report_infeasible=GIVE_UP_REASON)],
                               "reports the task infeasible at once, without looking, saying only 'no'"))


def _answer_checks(inst: TaskInstance) -> list[Any]:
    from verifiers.answer import AnswerSpec
    from verifiers.rubric import walk

    return [s for top in inst.verifier.checks for _, s in walk(top, "") if isinstance(s, AnswerSpec)]


def _decoy(match: str, value: Any) -> str | None:
    from verifiers.answer import parse_number

    text = str(value)
    if match == "number":
        n = value if isinstance(value, (int, float)) else parse_number(text)
        return None if n is None else f"{text} or {n + 1:g}"
    if match in ("normalized", "contains", "exact"):
        return f"{text} or possibly something else"
    if match == "set":
        return f"{text}, Unknown Extra Item"
    if match in ("phone", "email", "date"):
        return None  # one value of the type is read; several already fail (tested in verifiers)
    return None


def _stuffed_answer(inst: TaskInstance) -> Adversary | None:
    from verifiers.values import resolve

    for spec in _answer_checks(inst):
        expected = resolve(spec.expected, inst.params)
        first = expected[0] if isinstance(expected, list) else expected
        if spec.match == "set" and isinstance(expected, list):
            first = ", ".join(str(v) for v in expected)
        answer = _decoy(spec.match, first)
        if answer is not None:
            return Adversary(_solution("adv-stuffed-answer", [AnswerStep(answer=answer)],
                                       "answers with the right value hedged by a decoy"))
    return None


def _body(inst: TaskInstance) -> tuple[list[Any], list[Any]]:
    """The oracle's steps before its final step, and the final step."""
    steps = list(inst.oracle.steps)
    if steps and isinstance(steps[-1], TERMINAL_STEPS):
        return steps[:-1], steps[-1:]
    return steps, [AnswerStep(answer="Done.")]


def _referenced_tables(inst: TaskInstance) -> set[str]:
    from verifiers.rubric import walk

    tables: set[str] = set()
    for top in inst.verifier.checks:
        for _, spec in walk(top, ""):
            tables |= {table for _, table, _ in spec.references()}
    return tables


def _unrelated_edit(inst: TaskInstance, template_world: Path) -> Adversary | None:
    """Append to a text field of the last row of the first table of the app that the task never names."""
    from fnmatch import fnmatchcase

    referenced = _referenced_tables(inst)
    volatile = list(inst.volatile)
    with closing(sqlite3.connect(f"file:{template_world}?mode=ro", uri=True)) as conn:
        tables = [r[0] for r in conn.execute(
            "select name from sqlite_master where type='table' and name like ? order by name", (f"{inst.app}_%",))]
        for table in tables:
            if table in referenced or any("." not in p and fnmatchcase(table, p) for p in volatile):
                continue
            cols = conn.execute(f'pragma table_info("{table}")').fetchall()
            if not any(c[1] == "id" and c[5] for c in cols):
                continue
            text_cols = [c[1] for c in cols if (c[2] or "").upper().startswith(("VARCHAR", "TEXT")) and c[1] != "id"
                         and not any(fnmatchcase(f"{table}.{c[1]}", p) for p in volatile if "." in p)]
            row = conn.execute(f'select max(id) from "{table}"').fetchone()
            if text_cols and row and row[0] is not None:
                table_, col, rid = table, text_cols[0], row[0]
                break
        else:
            return None

    async def after(path: Path, _prepared: Any, _send: SendFn, _host: Any) -> None:
        with closing(sqlite3.connect(path)) as c:
            c.execute(f'update "{table_}" set "{col}" = coalesce("{col}", \'\') || \' (edited)\' where id = ?', (rid,))
            c.commit()

    body, tail = _body(inst)
    sol = _solution("adv-unrelated-edit", body + tail,
                    f"solves the task, and also edits {table_} #{rid}'s {col}, which the task does not concern")
    return Adversary(sol, after=after)


def _mass_one_wrong(inst: TaskInstance, template_world: Path) -> list[Adversary]:
    """For each update expectation over several rows: after the oracle, one of the rows it had to
    change is set to a value its condition rejects (the value another row of the table has), when
    such a value exists besides the one the row started with (a boolean has none: setting it back
    is work undone, which earns partial credit, not damage)."""
    from verifiers.db import ChangesSpec
    from verifiers.rubric import walk

    out = []
    for top in inst.verifier.checks:
        for _, spec in walk(top, ""):
            if not isinstance(spec, ChangesSpec):
                continue
            for e in spec.expect:
                if e.count == "all":
                    many = True
                else:
                    c = e.count
                    many = isinstance(c.exactly, str) or (c.exactly or 0) > 1 or (
                        c.exactly is None and (not isinstance(c.at_most, int) or c.at_most > 1))
                if e.op != "update" or not e.to or not many:
                    continue
                adv = _one_wrong(inst, e, len(out))
                if adv.prepare is not None and adv.prepare(template_world) is not None:
                    out.append(adv)
    return out[:1]


def _one_wrong(inst: TaskInstance, e: Any, i: int) -> Adversary:
    from verifiers import VerifyContext
    from verifiers.base import Env
    from verifiers.conditions import match_row

    def env_for(path: Path) -> Env:
        return Env(VerifyContext(end_db=path, params=dict(inst.params)))

    def prepare(path: Path) -> Any:
        env = env_for(path)
        try:
            keys = env.key_columns(e.table)
            rows = [r for r in env.rows(e.table) if match_row(e.where, r, env, e.table)]
            if not rows:
                return None
            row = sorted(rows, key=lambda r: [r[k] for k in keys])[0]
            wrong: dict[str, Any] = {}
            for f, cond in e.to.items():
                values = sorted({r[f] for r in env.rows(e.table) if r[f] is not None}, key=repr)
                # wrong, and not the value it started with (that would be work left undone, not damage)
                bad = [v for v in values if not cond.test(v, env) and v != row[f]]
                if bad:
                    wrong[f] = bad[0]
            return (keys, {k: row[k] for k in keys}, wrong) if wrong else None
        finally:
            env.close()

    async def after(path: Path, prepared: Any, _send: SendFn, _host: Any) -> None:
        if prepared is None:  # nothing to make wrong (no row, or no wrong value but the start's): the oracle stands
            raise RuntimeError(f"no {e.table} row matched the mass change at the start, or no wrong value exists")
        keys, key, wrong = prepared
        with closing(sqlite3.connect(path)) as c:
            sets = ", ".join(f'"{f}" = ?' for f in wrong)
            cond = " and ".join(f'"{k}" = ?' for k in keys)
            c.execute(f'update "{e.table}" set {sets} where {cond}', [*wrong.values(), *key.values()])
            c.commit()

    body, tail = _body(inst)
    sol = _solution(f"adv-mass-one-wrong{'' if i == 0 else f'-{i}'}", body + tail,
                    f"makes the mass change on {e.table}, with one of its rows set to a wrong value")
    return Adversary(sol, prepare=prepare, after=after)


def _signed_out(inst: TaskInstance) -> Adversary:
    async def after(_path: Path, _prepared: Any, send: SendFn, host: Any) -> None:
        await send({"action": "goto", "url": host.url(None, "/signout")})

    body, tail = _body(inst)
    return Adversary(_solution("adv-signed-out", body + tail, "solves the task, then signs out: the persona is gone"),
                     after=after)


__all__ = ["ADVERSARY", "Adversary", "adversaries"]
