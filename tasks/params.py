"""Drawing a template's parameters from a world with the seed, and applying world changes.

Every parameter has its own RNG seeded by (task, seed, name): one template and seed always give the
same instance, and adding a parameter never reshuffles the others.
"""

from __future__ import annotations

import datetime as dt
import importlib
import random
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Callable

from .model import Param, Persona, SetupOp
from .render import RenderError, evaluate, render_sql, render_value


class InstanceError(ValueError):
    """A template that cannot be instantiated for a seed; the message names the field and the seed."""


@dataclass
class DrawContext:
    """What parameter draws and hooks see."""

    conn: sqlite3.Connection
    task_id: str
    seed: int
    params: dict[str, Any] = field(default_factory=dict)

    def rng(self, name: str) -> random.Random:
        return random.Random(f"{self.task_id}/{self.seed}/{name}")

    def query(self, sql: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        text, binds = render_sql(sql, self.params if params is None else params)
        cur = self.conn.execute(text, binds)
        cols = [d[0] for d in cur.description or ()]
        return [dict(zip(cols, row)) for row in cur.fetchall()]


def load_hook(ref: str) -> Callable[..., Any]:
    """``package.module:function`` -> the function (ImportError/AttributeError say which)."""
    module_name, _, attr = ref.partition(":")
    module = importlib.import_module(module_name)
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise AttributeError(f"module {module_name!r} has no function {attr!r}")
    return fn


def _sql_value(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, bool):
        return int(value)
    return value


def draw_param(ctx: DrawContext, name: str, spec: Param) -> Any:
    where = f"params.{name}"
    try:
        if spec.sql is not None:
            rows = ctx.query(spec.sql)
            if not rows:
                raise InstanceError(f"{where}: the query matched no rows in world seed {ctx.seed}")
            if spec.pick == "first":
                return rows[0]
            if spec.pick == "all":
                return rows
            rng = ctx.rng(name)
            if spec.pick == "sample":
                if len(rows) < spec.count:
                    raise InstanceError(f"{where}: the query matched {len(rows)} rows, fewer than count {spec.count} (world seed {ctx.seed})")
                picks = sorted(rng.sample(range(len(rows)), spec.count))
                return [rows[i] for i in picks]
            return rows[rng.randrange(len(rows))]
        if spec.value is not None:
            rows = ctx.query(spec.value)
            if rows and len(rows[0]) != 1:
                raise InstanceError(f"{where}: a value query returns one column, got {', '.join(rows[0])}")
            if len(rows) > 1:
                raise InstanceError(f"{where}: a value query returns one row, got {len(rows)} (world seed {ctx.seed})")
            return next(iter(rows[0].values())) if rows else None
        if spec.choice is not None:
            options = render_value(spec.choice, ctx.params)
            return options[ctx.rng(name).randrange(len(options))]
        if spec.expr is not None:
            return evaluate(spec.expr, ctx.params)
        if spec.fake is not None:
            from faker import Faker

            fake = Faker("en_US")
            fake.seed_instance(f"{ctx.task_id}/{ctx.seed}/{name}")
            provider = getattr(fake, spec.fake, None)
            if provider is None or not callable(provider):
                raise InstanceError(f"{where}.fake: Faker has no provider {spec.fake!r}")
            return provider()
        return load_hook(spec.python)(ctx)
    except InstanceError:
        raise
    except (RenderError, sqlite3.Error) as e:
        raise InstanceError(f"{where}: {e}") from None


def draw_persona(ctx: DrawContext, persona: Persona, where: str = "persona") -> dict[str, Any]:
    if persona.username is not None:
        rows = ctx.query("select * from identity_user where username = {{ u }}", {"u": persona.username})
        if not rows:
            raise InstanceError(f"{where}: no user {persona.username!r} in world seed {ctx.seed}")
        user = rows[0]
    else:
        rows = ctx.query("select * from identity_user where role = {{ r }} and active = 1 order by id", {"r": persona.role})
        if not rows:
            raise InstanceError(f"{where}: no active user with role {persona.role!r} in world seed {ctx.seed}")
        user = rows[ctx.rng("persona").randrange(len(rows))]
    user.pop("password_hash", None)
    user["name"] = f"{user['first_name']} {user['last_name']}"
    return user


# -- world changes (set-up, and direct near-miss mutations) -------------------------------------------------
def _where(where: dict[str, Any]) -> tuple[str, list[Any]]:
    parts, binds = [], []
    for col, value in where.items():
        if value is None:
            parts.append(f'"{col}" IS NULL')
        else:
            parts.append(f'"{col}" = ?')
            binds.append(_sql_value(value))
    return " AND ".join(parts), binds


def apply_change(conn: sqlite3.Connection, op: SetupOp, params: dict[str, Any], where: str = "setup") -> None:
    """Apply one change to a world connection; ``insert ... as: name`` stores the new row's id in params."""
    try:
        if op.python is not None:
            load_hook(op.python)(conn, params)
            return
        if op.sql is not None:
            text, binds = render_sql(op.sql, params)
            conn.execute(text, [_sql_value(b) for b in binds])
            return
        table = op.table
        if op.update is not None:
            values = render_value(op.set, params)
            cond, cbinds = _where(render_value(op.where, params))
            sets = ", ".join(f'"{c}" = ?' for c in values)
            cur = conn.execute(f'UPDATE "{table}" SET {sets} WHERE {cond}', [_sql_value(v) for v in values.values()] + cbinds)
            if cur.rowcount == 0:
                raise InstanceError(f"{where}: update {table} matched no rows")
        elif op.delete is not None:
            cond, cbinds = _where(render_value(op.where, params))
            cur = conn.execute(f'DELETE FROM "{table}" WHERE {cond}', cbinds)
            if cur.rowcount == 0:
                raise InstanceError(f"{where}: delete from {table} matched no rows")
        else:
            values = render_value(op.values, params)
            cols = ", ".join(f'"{c}"' for c in values)
            marks = ", ".join("?" for _ in values)
            cur = conn.execute(f'INSERT INTO "{table}" ({cols}) VALUES ({marks})', [_sql_value(v) for v in values.values()])
            if op.as_:
                params[op.as_] = cur.lastrowid
    except InstanceError:
        raise
    except (RenderError, sqlite3.Error) as e:
        raise InstanceError(f"{where}: {e}") from None


def apply_changes(conn: sqlite3.Connection, ops: list[SetupOp], params: dict[str, Any], prefix: str = "setup") -> None:
    for i, op in enumerate(ops):
        apply_change(conn, op, params, f"{prefix}[{i}]")
