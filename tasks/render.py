"""Jinja2 for task files: instructions and steps (text), and SQL whose parameters are bound, never pasted."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from typing import Any

from jinja2 import StrictUndefined, TemplateSyntaxError, meta, nodes, pass_context
from jinja2.sandbox import SandboxedEnvironment

from apps_web.ui import fmt_date, iso_date, money, number


class RenderError(ValueError):
    """A template string that does not render (syntax error, unknown parameter)."""


def _add_days(value: Any, days: int) -> dt.date:
    d = value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value)[:10])
    if isinstance(d, dt.datetime):
        d = d.date()
    return d + dt.timedelta(days=int(days))


def _us_date(value: Any) -> str:
    """MM/DD/YYYY, as a US user types a date."""
    d = value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value)[:10])
    return f"{d.month:02d}/{d.day:02d}/{d.year}"


def _env(finalize: Any = None) -> SandboxedEnvironment:
    env = SandboxedEnvironment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False, finalize=finalize)
    env.filters.update(
        money=money, number=number, date=fmt_date, iso_date=iso_date, add_days=_add_days, us_date=_us_date,
    )
    return env


def _fmt(value: Any) -> Any:
    # Whole floats read as integers ("75000", not "75000.0"), as a person would write them.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


TEXT = _env(finalize=_fmt)


@lru_cache(maxsize=4096)
def _compile(text: str):
    try:
        return TEXT.from_string(text)
    except TemplateSyntaxError as e:
        raise RenderError(f"template syntax error: {e.message} in {text!r}") from None


@lru_cache(maxsize=2048)
def _compile_expr(expr: str):
    try:
        return TEXT.compile_expression(expr)
    except TemplateSyntaxError as e:
        raise RenderError(f"expression syntax error: {e.message} in {expr!r}") from None


def has_template(value: Any) -> bool:
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def render_text(text: str, params: dict[str, Any]) -> Any:
    """Render a string. A string that is only ``{{ expr }}`` keeps the expression's type."""
    if not has_template(text):
        return text
    stripped = text.strip()
    if stripped.startswith("{{") and stripped.endswith("}}") and stripped.count("{{") == 1 and "{%" not in stripped:
        return evaluate(stripped[2:-2].strip(), params)
    try:
        return _compile(text).render(params)
    except RenderError:
        raise
    except Exception as e:  # noqa: BLE001 - undefined names, bad filters: say which string
        raise RenderError(f"{e} (in {text!r})") from None


def render_value(value: Any, params: dict[str, Any]) -> Any:
    """Render every string inside plain data (dicts, lists)."""
    if isinstance(value, str):
        return render_text(value, params)
    if isinstance(value, dict):
        return {k: render_value(v, params) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [render_value(v, params) for v in value]
    return value


def evaluate(expr: str, params: dict[str, Any]) -> Any:
    """Evaluate a Jinja2 expression (``opp.amount * 2``) to a Python value."""
    try:
        value = _compile_expr(expr)(**params)
    except RenderError:
        raise
    except Exception as e:  # noqa: BLE001
        raise RenderError(f"{e} (in expression {expr!r})") from None
    if isinstance(value, StrictUndefined):
        raise RenderError(f"{expr!r} is undefined")
    return value


_BINDS = "__sql_binds__"  # the render's list of bound values, passed in its context


@pass_context  # a context-taking finalize is never run at compile time, so a compiled statement can be reused
def _bind(context: Any, value: Any) -> str:
    if isinstance(value, StrictUndefined):
        value._fail_with_undefined_error()  # an unknown name: an error here, not an Undefined bound into the SQL
    if isinstance(value, (dt.date, dt.datetime)):
        value = value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    context[_BINDS].append(value)
    return "?"


SQL = _env(finalize=_bind)


@lru_cache(maxsize=4096)
def _compile_sql(sql: str):
    try:
        return SQL.from_string(sql)
    except TemplateSyntaxError as e:
        raise RenderError(f"template syntax error: {e.message} in {sql!r}") from None


def render_sql(sql: str, params: dict[str, Any]) -> tuple[str, list[Any]]:
    """Render SQL whose ``{{ expr }}`` become ``?`` placeholders bound to the values (quotes,
    apostrophes and types are safe): ``where id = {{ opp.id }}`` -> ``where id = ?``, [12]."""
    binds: list[Any] = []
    template = _compile_sql(sql)
    try:
        text = template.render({**params, _BINDS: binds})
    except Exception as e:  # noqa: BLE001
        raise RenderError(f"{e} (in {sql!r})") from None
    return text, binds


def names_used(text: str) -> set[str]:
    """Top-level names a template string refers to (for load-time checks)."""
    if not has_template(text):
        return set()
    return set(_names_used(text))


@lru_cache(maxsize=4096)
def _names_used(text: str) -> frozenset[str]:
    # Macros expand the same strings into many templates: each is parsed once per process.
    try:
        ast = TEXT.parse(text)
    except TemplateSyntaxError as e:
        raise RenderError(f"template syntax error: {e.message} in {text!r}") from None
    return frozenset(meta.find_undeclared_variables(ast))


def expr_names(expr: str) -> set[str]:
    try:
        ast = TEXT.parse("{{ " + expr + " }}")
    except TemplateSyntaxError as e:
        raise RenderError(f"expression syntax error: {e.message} in {expr!r}") from None
    return {n.name for n in ast.find_all(nodes.Name) if n.ctx == "load"}


def strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in strings_in(v)]
    return []
