"""World checks: records expected in the final world (``state``), and the change set (``changes``)."""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any, Iterator, Literal

from pydantic import Field, model_validator

from apps_web.world import RowUpdate
from apps_web.world.diff import row_key

from .base import CheckSpec, Env, SpecModel, key_label, spec_error
from .conditions import Count, Where, match_row, where_phrase, where_refs
from .values import EvaluationError, fmt
from .verdict import Check

# --------------------------------------------------------------------------- state


class StateSpec(CheckSpec):
    """Rows of ``table`` matching ``where`` must exist (``count``) and have the ``expect`` values.

    Without ``count``, at least one row must match. Each ``expect`` field becomes its own check and
    must hold for every matching row; with ``sentence`` given, the whole spec is one check instead.
    ``subject`` names the rows in sentences ("the Acme renewal opportunity").
    """

    kind: Literal["state"] = "state"
    table: str
    where: Where = Field(default_factory=dict)
    expect: Where = Field(default_factory=dict)
    count: Count | None = None
    subject: str | None = None

    def default_name(self) -> str:
        return f"state:{self.table}"

    def describe(self) -> str:
        return self.sentence or f"the {self.table} state is as expected"

    def references(self) -> Iterator[tuple[str, str, str | None]]:
        yield "table", self.table, None
        yield from where_refs(self.where, self.table, "where")
        yield from where_refs(self.expect, self.table, "expect")

    def _rows_phrase(self, env: Env) -> str:
        w = where_phrase(self.where, env)
        return f"{self.table} row" + (f" where {w}" if w else "")

    def evaluate(self, env: Env) -> list[Check]:
        env.require_fields(self.table, [*self.where, *self.expect])
        rows = [r for r in env.rows(self.table) if match_row(self.where, r, env, self.table)]
        keys = env.key_columns(self.table)
        rows_phrase = self._rows_phrase(env)
        checks: list[Check] = []

        declared = self.count.resolved(env) if self.count is not None else None
        count = declared if declared is not None else (None if self.expect else Count(at_least=1))
        if count is not None:
            n = len(rows)
            single = count.exactly in (0, 1) or (
                count.exactly is None and count.at_least in (0, 1) and count.at_most is None
            )
            verb = "remains" if count.exactly == 0 else "exists" if single else "exist"
            w = where_phrase(self.where, env)
            found = ", ".join(key_label(r, keys) for r in rows[:10]) + (" ..." if n > 10 else "")
            ok = count.ok(n)
            checks.append(self.check(
                "count",
                sentence=f"{count.phrase()} {self.table} row{'' if single else 's'}"
                + (f" where {w}" if w else "") + f" {verb}",
                passed=ok,
                expected=count.expected(),
                actual=n,
                detail=None if ok else (f"found {n}: {found}" if n else "found none"),
            ))

        subject = env.resolve(self.subject) if self.subject else None
        for field, cond in self.expect.items():
            phrase = cond.phrase(field, env)
            sentence = f"{subject}'s {phrase}" if subject else f"{rows_phrase}: {phrase}"
            if not rows:
                vacuous = declared is not None and declared.allows_zero()
                checks.append(self.check(
                    field, sentence=sentence, passed=vacuous, expected=cond.expected(env), actual=None,
                    detail=None if vacuous else f"no {rows_phrase}",
                ))
                continue
            bad = [r for r in rows if not cond.test(r[field], env)]
            if len(rows) == 1:
                actual: Any = rows[0][field]
            else:
                shown = bad or rows
                values = {key_label(r, keys) or str(i): r[field] for i, r in enumerate(shown[:20])}
                actual = values if bad or len(set(map(repr, values.values()))) > 1 else rows[0][field]
            detail = None
            if bad:
                detail = f"{field} is {fmt(bad[0][field])}" if len(rows) == 1 else f"{len(bad)} of {len(rows)} matching rows differ"
            checks.append(self.check(
                field, sentence=sentence, passed=not bad, expected=cond.expected(env), actual=actual, detail=detail,
            ))

        if self.sentence and checks:
            failed = [c for c in checks if not c.passed]
            return [self.check(
                sentence=env.resolve(self.sentence),
                passed=not failed,
                expected={c.name.rsplit(".", 1)[-1]: c.expected for c in checks},
                actual={c.name.rsplit(".", 1)[-1]: c.actual for c in checks},
                detail="; ".join(c.line() for c in failed) or None,
            )]
        return checks


# --------------------------------------------------------------------------- changes

Op = Literal["add", "update", "remove"]
OPS: tuple[Op, ...] = ("add", "update", "remove")
_OP_SYNONYMS = {
    "added": "add", "insert": "add", "inserted": "add", "create": "add", "created": "add",
    "updated": "update", "modify": "update", "modified": "update", "change": "update", "changed": "update",
    "removed": "remove", "delete": "remove", "deleted": "remove",
}


def _norm_op(value: Any) -> Any:
    return _OP_SYNONYMS.get(value, value) if isinstance(value, str) else value


class ExpectedChange(SpecModel):
    """Rows of ``table`` that must have been added / updated / removed.

    ``where`` is matched against the new row (add), the removed row (remove) or the row as it was
    before the change (update). For updates, ``to`` lists fields that must have changed to values that
    satisfy the conditions, ``fields`` fields that must have changed (to anything), and ``after``
    conditions the row must meet after the change (changed or not). ``count`` defaults to exactly one;
    ``count: all`` means every row that matched ``where`` at the start (updates and removals), and at
    least one. Only rows that end as expected are explained by the expectation: a matching row changed
    to anything else is left to the "nothing else changed" guard, as damage.
    """

    table: str
    op: Op
    where: Where = Field(default_factory=dict)
    to: Where = Field(default_factory=dict)
    fields: list[str] = Field(default_factory=list)
    after: Where = Field(default_factory=dict)
    count: Count | Literal["all"] = Field(default_factory=lambda: Count(exactly=1))
    name: str | None = None
    sentence: str | None = None
    weight: float | None = Field(None, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _op(cls, data: Any) -> Any:
        if isinstance(data, dict) and "op" in data:
            data = {**data, "op": _norm_op(data["op"])}
        return data

    @model_validator(mode="after")
    def _update_only(self) -> ExpectedChange:
        if self.count == "all" and self.op == "add":
            raise spec_error("'count: all' applies to updates and removals (rows that existed at the start)", "count")
        if self.op != "update":
            for key in ("to", "fields", "after"):
                if getattr(self, key):
                    raise spec_error(f"'{key}' applies to updates only, not to op '{self.op}'", key)
        return self


class AllowedChange(SpecModel):
    """Changes that may happen without counting as damage (table may be a wildcard pattern).

    ``where`` (required) names the rows: the new row for adds, the removed row for removals, the row
    as it was before the change for updates. An allowed update names its ``fields`` (patterns
    allowed) and/or constrains them with ``to`` (the values they may end with; a field in ``to`` is
    allowed only when it ends satisfying its condition).
    """

    table: str
    ops: list[Op] = Field(default_factory=lambda: list(OPS))
    where: Where = Field(default_factory=dict)
    fields: list[str] | None = None
    to: Where = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _ops(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            if "op" in data and "ops" not in data:
                data["ops"] = data.pop("op")
            if isinstance(data.get("ops"), str):
                data["ops"] = [data["ops"]]
            if isinstance(data.get("ops"), list):
                data["ops"] = [_norm_op(o) for o in data["ops"]]
        return data

    @model_validator(mode="after")
    def _named_rows(self) -> AllowedChange:
        if not self.where:
            raise spec_error(
                "an allowed change must name its rows with 'where' (e.g. where: {id: \"{{ opp.id }}\"}); "
                "an allow without it would excuse damage to any row", "where",
            )
        if "update" in self.ops and not self.fields and not self.to:
            raise spec_error(
                "an allowed update must name its 'fields' (or constrain them with 'to'); "
                "without them any field of the row could change", "fields",
            )
        return self

    def field_patterns(self) -> list[str]:
        return [*(self.fields or []), *self.to]


_ALL = None  # coverage marker: every field of the row is covered


class ChangesSpec(CheckSpec):
    """The change set from the start to the end of the episode.

    One check per ``expect`` entry, and (``strict``, the default) a "nothing else changed" check that
    fails on any change not covered by an expected or ``allow``-ed change. Updates that touch only
    ignored fields (context ``ignore`` plus this spec's ``ignore``) are not changes. ``tables``
    limits the nothing-else check to some tables (patterns allowed).
    """

    kind: Literal["changes"] = "changes"
    expect: list[ExpectedChange] = Field(default_factory=list)
    allow: list[AllowedChange] = Field(default_factory=list)
    ignore: list[str] = Field(default_factory=list)
    strict: bool = True
    tables: list[str] | None = None

    def default_name(self) -> str:
        return "changes"

    def describe(self) -> str:
        return self.sentence or "the world changed as expected"

    def references(self) -> Iterator[tuple[str, str, str | None]]:
        for i, e in enumerate(self.expect):
            p = f"expect[{i}]"
            yield f"{p}.table", e.table, None
            yield from where_refs(e.where, e.table, f"{p}.where")
            yield from where_refs(e.to, e.table, f"{p}.to")
            yield from where_refs(e.after, e.table, f"{p}.after")
            for j, f in enumerate(e.fields):
                yield f"{p}.fields[{j}]", e.table, f
        for i, a in enumerate(self.allow):
            if any(ch in a.table for ch in "*?["):
                continue
            p = f"allow[{i}]"
            yield f"{p}.table", a.table, None
            yield from where_refs(a.where, a.table, f"{p}.where")
            yield from where_refs(a.to, a.table, f"{p}.to")
            for j, f in enumerate(a.fields or []):
                if not any(ch in f for ch in "*?["):
                    yield f"{p}.fields[{j}]", a.table, f

    # -- evaluation
    def evaluate(self, env: Env) -> list[Check]:
        checks: list[Check] = []
        covered: dict[tuple[str, str, Any], set[str] | None] = {}
        for e in self.expect:
            try:
                checks.append(self._expected(e, env, covered))
            except Exception as err:  # noqa: BLE001 - one bad entry must not hide the others
                msg = str(err) if isinstance(err, EvaluationError) else f"{type(err).__name__}: {err}"
                checks.append(self._named(e, sentence=e.sentence or f"{e.table} rows were {_past(e.op)}",
                                          passed=False, error=msg))
        if self.strict:
            checks.append(self._nothing_else(env, covered))
        return checks

    def _named(self, e: ExpectedChange, **fields: Any) -> Check:
        own = e.name or f"{e.op}:{e.table}"
        name = f"{self.name}.{own}" if self.name else own
        return Check(name=name, weight=self.weight if e.weight is None else e.weight, **fields)

    def _effective_fields(self, env: Env, table: str, u: RowUpdate, wanted: set[str]) -> list[str]:
        return [f for f in u.fields if f in wanted or not env.field_ignored(table, f, self.ignore)]

    def _expected(self, e: ExpectedChange, env: Env, covered: dict) -> Check:
        env.require_fields(e.table, [*e.where, *e.to, *e.fields, *e.after])
        td = env.ctx.diff.table(e.table)
        keys = td.key_columns or env.key_columns(e.table)
        every = e.count == "all"
        count = e.count if every else e.count.resolved(env)
        single = not every and count.exactly == 1
        rows_phrase = f"{e.table} row" + ("" if single or every else "s")
        w = where_phrase(e.where, env)
        if every:
            rows_phrase += f" that matched at the start{' where ' + w if w else ''},"
        elif w:
            rows_phrase += f" where {w}"
        verb = "was" if single or every else "were"
        quantity = "every" if every else count.phrase()
        details: list[str] = []

        if e.op in ("add", "remove"):
            pool = td.added if e.op == "add" else td.removed
            cands = [r for r in pool if match_row(e.where, r, env, e.table)]
            sat = cands
            for r in cands:
                _cover(covered, (e.table, e.op, _hkey(td.key_of(r) if td.key_columns else tuple(r.items()))), _ALL)
            sentence = f"{quantity} {rows_phrase} {verb} {_past(e.op)}"
            seen = [_row_line(e.table, e.op, r, keys) for r in cands]
            others = [_row_line(e.table, e.op, r, keys) for r in pool if r not in cands]
        else:
            wanted = set(e.to) | set(e.fields)
            cands = [
                u for u in td.updated
                if match_row(e.where, u.before, env, e.table) and self._effective_fields(env, e.table, u, wanted)
            ]
            sat = []
            for u in cands:
                problems = []
                for f, cond in e.to.items():
                    if f not in u.fields:
                        problems.append(f"{f} did not change")
                    elif not cond.test(u.after.get(f), env):
                        problems.append(f"{f} is {fmt(u.after.get(f))}")
                problems += [f"{f} did not change" for f in e.fields if f not in u.fields]
                problems += [f"{f} is {fmt(u.after.get(f))}" for f, cond in e.after.items()
                             if not cond.test(u.after.get(f), env)]
                if problems:
                    details.append(f"{e.table} {key_label(u.after, keys)}: " + ", ".join(problems))
                else:
                    sat.append(u)
                    # Only a row that ends as expected is explained; a wrong one stays damage.
                    _cover(covered, (e.table, "update", _hkey(u.key)), wanted or _ALL)
            changes = [c.phrase(f, env) for f, c in e.to.items()] + [f"{f} changed" for f in e.fields if f not in e.to]
            changes += [c.phrase(f, env) for f, c in e.after.items()]
            sentence = f"{quantity} {rows_phrase} {verb} updated" + (
                " so that " + " and ".join(changes) if changes else ""
            )
            seen = [_update_line(e.table, u, keys, self._effective_fields(env, e.table, u, wanted)) for u in cands]
            others = [
                _update_line(e.table, u, keys, self._effective_fields(env, e.table, u, set()))
                for u in td.updated if u not in cands and self._effective_fields(env, e.table, u, set())
            ]

        n = len(sat)
        if every:
            missed = self._untouched_matches(e, env, td, keys)
            total = n + len(cands) - len(sat) + len(missed)
            passed = n >= 1 and n == total
            expected: Any = {"all": total}
            if missed:
                details.append(f"{len(missed)} matching row{'s' if len(missed) != 1 else ''} not {_past(e.op)}: "
                               + ", ".join(missed[:10]) + (" ..." if len(missed) > 10 else ""))
        else:
            passed = count.ok(n)
            expected = count.expected()
        actual: list[str] = seen or [f"no {rows_phrase} {verb} {_past(e.op)}"]
        if not passed and others:
            actual = actual + [f"other {e.table} change: {line}" for line in others[:5]]
        detail = None
        if not passed:
            detail = "; ".join([f"found {n} such change{'s' if n != 1 else ''}", *details])
        return self._named(
            e,
            sentence=env.resolve(e.sentence) if e.sentence else sentence,
            passed=passed,
            expected=expected,
            actual=actual,
            detail=detail,
            # every row of a mass change is progress: partial credit for the share done right
            score=(n / total if total else 0.0) if every else None,
        )

    def _untouched_matches(self, e: ExpectedChange, env: Env, td: Any, keys: list[str]) -> list[str]:
        """Rows that matched ``where`` at the start and were not updated/removed: the end world's rows
        that the diff does not touch are as they were at the start."""
        # an update that changed only ignored fields (done, then undone) leaves the row as it was
        wanted = set(e.to) | set(e.fields)
        touched = {_hkey(td.key_of(r)) for r in td.added} | {
            _hkey(u.key) for u in td.updated if self._effective_fields(env, e.table, u, wanted)}
        if e.op == "remove":
            touched |= {_hkey(td.key_of(r)) for r in td.removed}
        key_cols = td.key_columns or env.key_columns(e.table)
        out = []
        for r in env.rows(e.table):
            if _hkey(row_key(r, key_cols)) in touched:
                continue
            if match_row(e.where, r, env, e.table):
                out.append(key_label(r, keys) or "a row")
        return out

    def _allowed(self, env: Env, table: str, op: str, row: dict[str, Any], fields: list[str],
                 after: dict[str, Any] | None = None) -> list[str]:
        """The fields still not allowed (for add/remove: [] when allowed, ['*'] when not).

        ``row`` is the added or removed row, or for updates the row before the change (``after``
        the row after it, for ``to`` conditions)."""
        remaining = list(fields) if op == "update" else ["*"]
        for a in self.allow:
            if op not in a.ops or not fnmatchcase(table, a.table):
                continue
            if not _safe_match(a.where, row, env, table):
                continue
            if op != "update":
                return []
            patterns = a.field_patterns()
            keep = []
            for f in remaining:
                if not any(fnmatchcase(f, p) for p in patterns):
                    keep.append(f)
                elif f in a.to and not _safe_test(a.to[f], (after or {}).get(f), env):
                    keep.append(f)
            remaining = keep
            if not remaining:
                return []
        return remaining

    def _nothing_else(self, env: Env, covered: dict) -> Check:
        unexpected: list[str] = []
        for table, td in env.ctx.diff.tables.items():
            if env.table_ignored(table, self.ignore):
                continue
            if self.tables is not None and not any(fnmatchcase(table, p) for p in self.tables):
                continue
            keys = td.key_columns
            for op, pool in (("add", td.added), ("remove", td.removed)):
                for r in pool:
                    k = _hkey(td.key_of(r) if td.key_columns else tuple(r.items()))
                    if (table, op, k) in covered or not self._allowed(env, table, op, r, []):
                        continue
                    unexpected.append(_row_line(table, op, r, keys))
            for u in td.updated:
                fields = self._effective_fields(env, table, u, set())
                if not fields:
                    continue
                k = (table, "update", _hkey(u.key))
                if k in covered:
                    cov = covered[k]
                    if cov is _ALL:
                        continue
                    fields = [f for f in fields if f not in cov]
                fields = self._allowed(env, table, "update", u.before, fields, u.after) if fields else []
                if fields:
                    unexpected.append(_update_line(table, u, keys, fields))
        scope = f" in {', '.join(self.tables)}" if self.tables is not None else ""
        n = len(unexpected)
        shown = unexpected[:20] + ([f"... and {n - 20} more"] if n > 20 else [])
        name = f"{self.name}.nothing_else" if self.name else "nothing_else"
        return Check(
            name=name,
            sentence=f"nothing else changed{scope}" if self.expect or self.allow else f"nothing changed{scope}",
            passed=not unexpected,
            expected=[],
            actual=shown,
            weight=self.weight,
            guard=True,
            detail=None if not n else f"{n} unexpected change{'s' if n != 1 else ''}: {unexpected[0]}"
            + (f"; {unexpected[1]}" if n > 1 else "") + ("; ..." if n > 2 else ""),
        )


def _cover(covered: dict, key: tuple, fields: set[str] | None) -> None:
    if key in covered and (covered[key] is _ALL or fields is _ALL):
        covered[key] = _ALL
    elif key in covered:
        covered[key] = set(covered[key]) | set(fields or ())
    else:
        covered[key] = fields


def _safe_match(where: Where, row: dict[str, Any], env: Env, table: str) -> bool:
    try:
        return match_row(where, row, env, table)
    except EvaluationError:
        return False


def _safe_test(cond: Any, value: Any, env: Env) -> bool:
    try:
        return cond.test(value, env)
    except EvaluationError:
        return False


def _past(op: str) -> str:
    return {"add": "added", "update": "updated", "remove": "removed"}[op]


def _hkey(key: Any) -> Any:
    if isinstance(key, list):
        return tuple(_hkey(k) for k in key)
    if isinstance(key, dict):
        return tuple(sorted((k, _hkey(v)) for k, v in key.items()))
    return key


def _row_line(table: str, op: str, row: dict[str, Any], keys: list[str]) -> str:
    label = key_label(row, keys)
    shown = [(k, v) for k, v in row.items() if v is not None and (k not in keys or not label)]
    text = ", ".join(f"{k}={fmt(v)}" for k, v in shown[:6]) + (", ..." if len(shown) > 6 else "")
    return f"{table} {label + ' ' if label else ''}{_past(op)} ({text})"


def _update_line(table: str, u: RowUpdate, keys: list[str], fields: list[str]) -> str:
    label = key_label(u.after, keys) if keys else f"#{u.key}"
    parts = [f"{f} {fmt(u.before.get(f))} -> {fmt(u.after.get(f))}" for f in fields[:5]]
    more = f" and {len(fields) - 5} more" if len(fields) > 5 else ""
    return f"{table} {label} updated: " + "; ".join(parts) + more

