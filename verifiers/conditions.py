"""Field conditions (``where`` / ``expect``) and count expectations, as spec models.

A condition is a plain value (equality) or a mapping of operators, all of which must hold::

    stage: Closed Won                 # equality (numbers within a tolerance, dates as dates)
    amount: {gte: 1000, lt: 5000}
    name: {iequals: acme corp}        # case-insensitive equality
    subject: {contains: renewal}      # substring (icontains: ignoring case)
    status: {in: [Open, Escalated]}   # also not_in
    closed_at: {is_null: true}
    email: {regex: '@acme\\.com$'}
    amount: {eq: 1234.5, tol: 0.01}   # tol: absolute numeric tolerance for eq/ne/in/not_in
    account_id: {in_table: {table: crm_account, field: id, where: {name: Acme}}}

Values may name task parameters: ``"{{ account_name }}"``.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Iterator

from pydantic import Field, model_validator

from .base import Env, SpecModel, spec_error
from .values import EvaluationError, as_number, compare, fmt, has_params, is_datelike, join_or, values_equal

OPERATORS = (
    "eq", "ne", "iequals", "contains", "icontains", "in", "not_in",
    "gt", "gte", "lt", "lte", "is_null", "regex", "in_table", "tol",
)


class InTable(SpecModel):
    """The value is one of ``field`` over the rows of ``table`` matching ``where`` (in the final world)."""

    table: str
    field: str = "id"
    where: dict[str, FieldCond] = Field(default_factory=dict)


class FieldCond(SpecModel):
    """Conditions on one field's value; every operator given must hold."""

    _key_noun: ClassVar[str] = "operator"
    _key_hints: ClassVar[dict[str, str]] = {
        "equals": "eq", "equal": "eq", "is": "eq", "==": "eq", "=": "eq", "!=": "ne", "not": "ne",
        "neq": "ne", "not_eq": "ne", ">": "gt", ">=": "gte", "<": "lt", "<=": "lte", "ge": "gte", "le": "lte",
        "null": "is_null", "isnull": "is_null", "like": "icontains", "match": "regex", "matches": "regex",
        "one_of": "in", "any_of": "in", "includes": "contains", "ieq": "iequals", "tolerance": "tol",
    }

    eq: Any = None
    ne: Any = None
    iequals: Any = None
    contains: Any = None
    icontains: Any = None
    in_: Any = Field(None, alias="in")
    not_in: Any = None
    gt: Any = None
    gte: Any = None
    lt: Any = None
    lte: Any = None
    is_null: bool | None = None
    regex: str | None = None
    in_table: InTable | None = None
    tol: float | None = Field(None, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _plain_value(cls, data: Any) -> Any:
        if isinstance(data, dict):
            if not data:
                raise spec_error("an empty condition; give a value or operators such as {eq: ...}")
            return data
        if isinstance(data, (list, tuple, set)):
            raise spec_error("a list is not a value; to accept any of several values use {in: [...]}")
        return {"eq": data}

    @model_validator(mode="after")
    def _check(self) -> FieldCond:
        ops = self.ops()
        if not [k for k in ops if k != "tol"]:
            raise spec_error("'tol' needs an operator to apply to, such as eq")
        if "regex" in ops and not has_params(self.regex):
            try:
                re.compile(self.regex or "")
            except re.error as e:
                raise spec_error(f"invalid regular expression: {e}", "regex") from None
        for op in ("in", "not_in"):
            if op in ops and not isinstance(ops[op], (list, tuple)) and not has_params(ops[op]):
                raise spec_error(f"'{op}' needs a list of values", op)
        return self

    def ops(self) -> dict[str, Any]:
        """The operators given, by their spec names."""
        out: dict[str, Any] = {}
        for name in self.model_fields_set:
            f = type(self).model_fields[name]
            out[f.alias or name] = getattr(self, name)
        return {k: out[k] for k in OPERATORS if k in out}

    # -- evaluation
    def test(self, actual: Any, env: Env) -> bool:
        key = ("ops", id(self))
        ops = env.cache.get(key)
        if ops is None:
            ops = env.cache[key] = env.resolve(self.ops())
        tol = ops.get("tol")
        for op, v in ops.items():
            if op == "tol":
                continue
            if not _apply(op, actual, v, tol, env, self):
                return False
        return True

    def expected(self, env: Env | None = None) -> Any:
        """The condition as data for a Check's ``expected`` (the value itself for plain equality)."""
        ops = self.ops()
        if env is not None:
            ops = env.resolve(ops)
        if list(ops) == ["eq"]:
            return ops["eq"]
        return {k: (v.model_dump(by_alias=True, exclude_unset=True) if isinstance(v, InTable) else v) for k, v in ops.items()}

    def phrase(self, field: str, env: Env | None = None) -> str:
        ops = self.ops()
        if env is not None:
            try:
                ops = env.resolve(ops)
            except EvaluationError:
                pass
        tol = ops.get("tol")
        parts = [_phrase(op, v) for op, v in ops.items() if op != "tol"]
        text = f"{field} " + " and ".join(parts)
        return text + (f" (within {fmt(tol)})" if tol is not None else "")


def _apply(op: str, actual: Any, v: Any, tol: float | None, env: Env, cond: FieldCond) -> bool:
    if op == "eq":
        return values_equal(actual, v, tol)
    if op == "ne":
        return not values_equal(actual, v, tol)
    if op == "iequals":
        return actual is not None and str(actual).strip().casefold() == str(v).strip().casefold()
    if op == "contains":
        return actual is not None and str(v) in str(actual)
    if op == "icontains":
        return actual is not None and str(v).casefold() in str(actual).casefold()
    if op in ("in", "not_in"):
        if not isinstance(v, (list, tuple)):
            v = [v]
        found = any(values_equal(actual, x, tol) for x in v)
        return found if op == "in" else not found
    if op in ("gt", "gte", "lt", "lte"):
        c = compare(actual, v)
        if c is None:
            return False
        return {"gt": c > 0, "gte": c >= 0, "lt": c < 0, "lte": c <= 0}[op]
    if op == "is_null":
        return (actual is None) == bool(v)
    if op == "regex":
        return actual is not None and re.search(str(v), str(actual)) is not None
    if op == "in_table":
        spec = cond.in_table
        assert spec is not None
        key = ("in_table", id(cond))
        if key not in env.cache:
            env.require_fields(spec.table, [spec.field, *spec.where])
            values = [r[spec.field] for r in env.rows(spec.table) if match_row(spec.where, r, env, spec.table)]
            env.cache[key] = ({_value_key(v) for v in values}, values)
        keys, values = env.cache[key]
        k = _value_key(actual)
        if k in keys:
            return True
        if k[0] in ("n", "s") and not is_datelike(actual):
            return False  # plain numbers and text: the set lookup is the whole answer
        return any(values_equal(actual, x) for x in values)
    raise EvaluationError(f"unknown operator {op}")


def _value_key(v: Any) -> tuple[str, Any]:
    """A hashable key under which values that compare equal (ids as int or text) meet."""
    if isinstance(v, bool) or v is None:
        return ("o", v)
    n = as_number(v)
    if n is not None:
        return ("n", n)
    if isinstance(v, str):
        return ("s", v)
    return ("o", repr(v))


_ORDER_WORDS = {"gt": "greater than", "gte": "at least", "lt": "less than", "lte": "at most"}
_DATE_WORDS = {"gt": "after", "gte": "on or after", "lt": "before", "lte": "on or before"}


def _phrase(op: str, v: Any) -> str:
    if op == "eq":
        return "is empty" if v is None else f"is {fmt(v)}"
    if op == "ne":
        return "is set" if v is None else f"is not {fmt(v)}"
    if op == "iequals":
        return f"is {fmt(v)} (ignoring case)"
    if op == "contains":
        return f"contains '{v}'"
    if op == "icontains":
        return f"contains '{v}' (ignoring case)"
    if op == "in":
        return f"is {join_or([fmt(x) for x in v])}" if isinstance(v, list) and len(v) > 1 else f"is {fmt(v)}"
    if op == "not_in":
        return f"is neither {join_or([fmt(x) for x in v], 'nor')}" if isinstance(v, list) and len(v) > 1 else f"is not {fmt(v)}"
    if op in _ORDER_WORDS:
        words = _DATE_WORDS if is_datelike(v) else _ORDER_WORDS
        return f"is {words[op]} {fmt(v)}"
    if op == "is_null":
        return "is empty" if v else "is set"
    if op == "regex":
        return f"matches /{v}/"
    if op == "in_table":
        t = v if isinstance(v, InTable) else InTable.model_validate(v)
        where = where_phrase(t.where)
        return f"is the {t.field} of a {t.table} row" + (f" where {where}" if where else "")
    return f"{op} {fmt(v)}"


InTable.model_rebuild()

Where = dict[str, FieldCond]


def match_row(where: Where, row: dict[str, Any], env: Env, table: str) -> bool:
    """True when the row satisfies every condition; a field the row lacks is an evaluation error."""
    for field, cond in where.items():
        if field not in row:
            raise EvaluationError(f"no column '{field}' in table {table}")
        if not cond.test(row[field], env):
            return False
    return True


def where_phrase(where: Where, env: Env | None = None) -> str:
    return " and ".join(cond.phrase(f, env) for f, cond in where.items())


def where_refs(where: Where, table: str, path: str) -> Iterator[tuple[str, str, str | None]]:
    for field, cond in where.items():
        yield f"{path}.{field}", table, field
        if cond.in_table is not None:
            t = cond.in_table
            yield f"{path}.{field}.in_table.table", t.table, None
            yield f"{path}.{field}.in_table.field", t.table, t.field
            yield from where_refs(t.where, t.table, f"{path}.{field}.in_table.where")


class Count(SpecModel):
    """How many rows: ``3`` (exactly), or ``{exactly: n}``, ``{at_least: n}``, ``{at_most: n}``.
    A number may be a task parameter (``"{{ n }}"``), resolved when the check runs (``resolved``)."""

    exactly: int | str | None = None
    at_least: int | str | None = None
    at_most: int | str | None = None

    @model_validator(mode="before")
    @classmethod
    def _plain(cls, data: Any) -> Any:
        if isinstance(data, bool):
            raise spec_error("a count is a number or {exactly|at_least|at_most: n}")
        if isinstance(data, int) or (isinstance(data, str) and "{{" in data):
            return {"exactly": data}
        if isinstance(data, str) and data.strip().lower() in ("none", "no"):
            return {"exactly": 0}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> Count:
        if self.exactly is None and self.at_least is None and self.at_most is None:
            raise spec_error("a count needs one of exactly, at_least, at_most")
        for key in ("exactly", "at_least", "at_most"):
            v = getattr(self, key)
            if isinstance(v, str) and not has_params(v):
                raise spec_error(f"{key} is a whole number or a task parameter such as \"{{{{ n }}}}\"", key)
            if isinstance(v, int) and v < 0:
                raise spec_error(f"{key} cannot be negative", key)
        if self.exactly is not None and (self.at_least is not None or self.at_most is not None):
            raise spec_error("'exactly' cannot be combined with at_least/at_most")
        if (isinstance(self.at_least, int) and isinstance(self.at_most, int)) and self.at_least > self.at_most:
            raise spec_error("at_least is greater than at_most")
        return self

    def resolved(self, env: Env) -> Count:
        """This count with its parameters replaced by their values (whole numbers)."""
        if not any(isinstance(getattr(self, k), str) for k in ("exactly", "at_least", "at_most")):
            return self
        values = {}
        for key in ("exactly", "at_least", "at_most"):
            v = getattr(self, key)
            if isinstance(v, str):
                r = env.resolve(v)
                try:
                    v = int(float(r))
                except (TypeError, ValueError):
                    raise EvaluationError(f"count {key} {v!r} is not a whole number (it is {r!r})") from None
            values[key] = v
        return Count(**values)

    def ok(self, n: int) -> bool:
        if self.exactly is not None:
            return n == self.exactly
        return (self.at_least is None or n >= self.at_least) and (self.at_most is None or n <= self.at_most)

    def allows_zero(self) -> bool:
        return self.ok(0)

    def phrase(self) -> str:
        """'exactly one', 'no', 'at least 2', 'between 1 and 3', 'at most 2'."""
        def num(n: int) -> str:
            return {1: "one", 2: "two", 3: "three"}.get(n, str(n))
        if self.exactly is not None:
            return "no" if self.exactly == 0 else f"exactly {num(self.exactly)}"
        if self.at_least is not None and self.at_most is not None:
            return f"between {self.at_least} and {self.at_most}"
        if self.at_least is not None:
            return f"at least {num(self.at_least)}"
        return f"at most {num(self.at_most or 0)}"

    def expected(self) -> dict[str, int]:
        return self.model_dump(exclude_none=True)
