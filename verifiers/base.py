"""Shared machinery: the spec base models and the evaluation environment of one verify call."""

from __future__ import annotations

import difflib
import sqlite3
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, ClassVar, Iterator

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from apps_web.world import connect
from apps_web.world.diff import table_columns

from .context import VerifyContext
from .values import EvaluationError, resolve
from .verdict import Check


def did_you_mean(word: str, options: list[str] | set[str]) -> str:
    close = difflib.get_close_matches(word, sorted(options), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def spec_error(message: str, subpath: str = "") -> PydanticCustomError:
    """A validation error whose message keeps its sub-path (added to pydantic's location later)."""
    return PydanticCustomError("verifier_spec", "{message}", {"message": message, "subpath": subpath})


class SpecModel(BaseModel):
    """Base of every spec model: unknown keys are errors that suggest the closest known key."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, arbitrary_types_allowed=True)
    _key_noun: ClassVar[str] = "key"
    _key_hints: ClassVar[dict[str, str]] = {}

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        if isinstance(data, dict):
            known = set()
            for name, f in cls.model_fields.items():
                known.add(f.alias or name)
                known.add(name)
            for key in data:
                if key not in known:
                    shown = sorted(f.alias or n for n, f in cls.model_fields.items())
                    raise spec_error(
                        f"unknown {cls._key_noun} '{key}'"
                        + (f" (did you mean '{cls._key_hints[key]}'?)" if key in cls._key_hints
                           else did_you_mean(str(key), known))
                        + "; "
                        f"expected one of: {', '.join(shown)}",
                        str(key),
                    )
        return data


class CheckSpec(SpecModel):
    """Base of every check kind. ``name``, ``sentence``, ``weight`` and ``guard`` are common to all.

    ``guard: true`` makes a check a gate (it must hold, it earns no credit, and failing it caps the
    score), for conditions that already hold at the start, such as "the amount is unchanged".
    """

    kind: str
    name: str | None = None
    sentence: str | None = None
    weight: float = Field(1.0, ge=0)
    guard: bool = False

    def evaluate(self, env: Env) -> list[Check]:  # pragma: no cover - abstract
        raise NotImplementedError

    def default_name(self) -> str:
        return self.kind

    def describe(self) -> str:
        """A sentence for this check when it cannot even be evaluated."""
        return self.sentence or self.default_name()

    def references(self) -> Iterator[tuple[str, str, str | None]]:
        """(sub-path, table, field or None) for every table and field this check names."""
        return iter(())

    def children(self) -> list[CheckSpec]:
        return []

    def check(self, suffix: str = "", **fields: Any) -> Check:
        """A Check carrying this spec's name and weight."""
        name = self.name or self.default_name()
        if suffix:
            name = f"{name}.{suffix}"
        fields.setdefault("weight", self.weight)
        fields.setdefault("guard", self.guard)
        return Check(name=name, **fields)


class Env:
    """One verify call: the context, the optional judge, a read-only connection and caches."""

    def __init__(
        self,
        ctx: VerifyContext,
        *,
        judge: Any = None,
        base_dir: Path | None = None,
        ignore: list[str] | None = None,
    ) -> None:
        self.ctx = ctx
        if judge is None:
            from .judge import default_judge

            judge = default_judge()
        self.judge = judge
        self.base_dir = base_dir
        self.ignore = list(ctx.ignore) + list(ignore or [])
        self.results: list[Check] = []
        self.cache: dict[Any, Any] = {}
        self._conn: sqlite3.Connection | None = None
        self._rows: dict[str, list[dict[str, Any]]] = {}
        self._columns: dict[str, tuple[list[str], list[str]]] = {}
        self._tables: set[str] | None = None

    # -- parameters
    def resolve(self, value: Any) -> Any:
        return resolve(value, self.ctx.params)

    # -- database
    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            path = Path(self.ctx.end_db)
            if not path.exists():
                raise EvaluationError(f"the world database {path} does not exist")
            self._conn = connect(path, readonly=True)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def tables(self) -> set[str]:
        if self._tables is None:
            rows = self.conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").fetchall()
            self._tables = {r[0] for r in rows}
        return self._tables

    def require_table(self, table: str) -> None:
        tables = self.tables()
        if table not in tables:
            raise EvaluationError(f"no table '{table}' in the world{did_you_mean(table, tables)}")

    def columns(self, table: str) -> list[str]:
        return self._table_info(table)[0]

    def key_columns(self, table: str) -> list[str]:
        cols, pk = self._table_info(table)
        return pk or cols

    def _table_info(self, table: str) -> tuple[list[str], list[str]]:
        if table not in self._columns:
            self.require_table(table)
            self._columns[table] = table_columns(self.conn, table)
        return self._columns[table]

    def require_fields(self, table: str, fields: list[str] | set[str]) -> None:
        cols = self.columns(table)
        for f in fields:
            if f not in cols:
                raise EvaluationError(f"no column '{f}' in table {table}{did_you_mean(f, cols)}")

    def rows(self, table: str) -> list[dict[str, Any]]:
        if table not in self._rows:
            self.require_table(table)
            cur = self.conn.execute(f'SELECT * FROM "{table.replace(chr(34), chr(34) * 2)}"')
            names = [d[0] for d in cur.description]
            self._rows[table] = [dict(zip(names, r)) for r in cur.fetchall()]
        return self._rows[table]

    # -- volatile bookkeeping
    def table_ignored(self, table: str, extra: list[str] = ()) -> bool:  # type: ignore[assignment]
        return any("." not in p and fnmatchcase(table, p) for p in [*self.ignore, *extra])

    def field_ignored(self, table: str, field: str, extra: list[str] = ()) -> bool:  # type: ignore[assignment]
        for p in [*self.ignore, *extra]:
            if "." in p:
                tp, fp = p.split(".", 1)
                if fnmatchcase(table, tp) and fnmatchcase(field, fp):
                    return True
        return False


def key_label(row: dict[str, Any], key_columns: list[str]) -> str:
    """'#12' for one key column, '(team_id=3, user_id=7)' for a composite key."""
    if len(key_columns) == 1:
        return f"#{row.get(key_columns[0])}"
    if len(key_columns) <= 4:
        return "(" + ", ".join(f"{c}={row.get(c)!r}" for c in key_columns) + ")"
    return ""
