"""Comparing raw SQLite values with spec values, reading numbers from text, task parameters."""

from __future__ import annotations

import datetime as _dt
import math
import re
import unicodedata
from typing import Any

# --------------------------------------------------------------------------- task parameters

_PARAM = re.compile(r"\{\{\s*([A-Za-z_][\w]*(?:\.[\w]+)*)\s*\}\}")


class EvaluationError(Exception):
    """A check could not be evaluated (missing table, unset parameter, unreadable image...)."""


def param_names(value: Any) -> set[str]:
    """The ``{{ name }}`` parameters a spec value refers to."""
    if isinstance(value, str):
        return {m.group(1) for m in _PARAM.finditer(value)}
    if isinstance(value, dict):
        return set().union(*(param_names(v) for v in value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(param_names(v) for v in value)) if value else set()
    return set()


def has_params(value: Any) -> bool:
    return bool(param_names(value))


def _lookup(params: dict[str, Any], dotted: str) -> Any:
    cur: Any = params
    for part in dotted.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, (list, tuple)) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        elif hasattr(cur, part) and not isinstance(cur, dict):
            cur = getattr(cur, part)
        else:
            raise EvaluationError(f"task parameter '{dotted}' is not set")
    return cur


def resolve(value: Any, params: dict[str, Any]) -> Any:
    """Substitute ``{{ name }}`` parameters. A string that is only one parameter keeps its type."""
    if isinstance(value, str):
        whole = _PARAM.fullmatch(value.strip())
        if whole:
            return _lookup(params, whole.group(1))
        if "{{" not in value:
            return value
        return _PARAM.sub(lambda m: str(_lookup(params, m.group(1))), value)
    if isinstance(value, dict):
        return {k: resolve(v, params) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, params) for v in value]
    if isinstance(value, tuple):
        return tuple(resolve(v, params) for v in value)
    return value


# --------------------------------------------------------------------------- dates and numbers

_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$")


def as_datetime(value: Any) -> tuple[_dt.datetime, bool] | None:
    """(naive datetime, is a bare date) for date-like values, else None."""
    if isinstance(value, _dt.datetime):
        return value.replace(tzinfo=None) if value.tzinfo is None else _naive_utc(value), False
    if isinstance(value, _dt.date):
        return _dt.datetime(value.year, value.month, value.day), True
    if isinstance(value, str):
        s = value.strip()
        try:
            if _DATE_RE.match(s):
                d = _dt.date.fromisoformat(s)
                return _dt.datetime(d.year, d.month, d.day), True
            if _DATETIME_RE.match(s):
                dt = _dt.datetime.fromisoformat(s.replace("Z", "+00:00"))
                return (dt if dt.tzinfo is None else _naive_utc(dt)), False
        except ValueError:
            return None
    return None


def _naive_utc(dt: _dt.datetime) -> _dt.datetime:
    return dt.astimezone(_dt.timezone.utc).replace(tzinfo=None)


def is_datelike(value: Any) -> bool:
    return as_datetime(value) is not None


def as_number(value: Any) -> float | None:
    """A plain number from an int/float or a plain numeric string ('12', '-3.5'); bools are not numbers."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        s = value.strip()
        if re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", s):
            return float(s)
    return None


_TRUE = {"1", "true", "yes", "y", "on"}
_FALSE = {"0", "false", "no", "n", "off"}


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        s = value.strip().lower()
        return True if s in _TRUE else False if s in _FALSE else None
    return None


DEFAULT_ABS_TOL = 1e-6


def numbers_close(a: float, b: float, tol: float | None = None, rel_tol: float | None = None) -> bool:
    return math.isclose(
        a, b, rel_tol=1e-9 if rel_tol is None else rel_tol, abs_tol=DEFAULT_ABS_TOL if tol is None else tol
    )


def values_equal(actual: Any, expected: Any, tol: float | None = None) -> bool:
    """Spec equality for a raw SQLite value.

    None only equals None; booleans match 0/1; numbers match within a tolerance (also numeric text);
    date-like values compare as dates (a bare date matches any time on that day); text is exact.
    """
    if expected is None or actual is None:
        return expected is None and actual is None
    if isinstance(expected, bool) or isinstance(actual, bool):
        a, e = _as_bool(actual), _as_bool(expected)
        return a is not None and a == e
    if isinstance(expected, (_dt.date, _dt.datetime)) or (
        isinstance(expected, str) and isinstance(actual, str) and is_datelike(expected) and is_datelike(actual)
    ):
        a_dt, e_dt = as_datetime(actual), as_datetime(expected)
        if a_dt is None or e_dt is None:
            return False
        if a_dt[1] or e_dt[1]:
            return a_dt[0].date() == e_dt[0].date()
        return a_dt[0] == e_dt[0]
    if isinstance(expected, (int, float)) or isinstance(actual, (int, float)):
        a_n, e_n = as_number(actual), as_number(expected)
        if a_n is None or e_n is None:
            return False
        return numbers_close(a_n, e_n, tol)
    if isinstance(expected, str) and isinstance(actual, str):
        return actual == expected
    return actual == expected


def compare(actual: Any, expected: Any) -> int | None:
    """-1/0/1 ordering of actual against expected, or None when they are not comparable."""
    if actual is None or expected is None or isinstance(actual, bool) or isinstance(expected, bool):
        return None
    a_n, e_n = as_number(actual), as_number(expected)
    if a_n is not None and e_n is not None and (
        isinstance(actual, (int, float)) or isinstance(expected, (int, float))
        or not (is_datelike(actual) or is_datelike(expected))
    ):
        return (a_n > e_n) - (a_n < e_n)
    a_dt, e_dt = as_datetime(actual), as_datetime(expected)
    if a_dt is not None and e_dt is not None:
        if a_dt[1] or e_dt[1]:
            a, e = a_dt[0].date(), e_dt[0].date()
            return (a > e) - (a < e)
        return (a_dt[0] > e_dt[0]) - (a_dt[0] < e_dt[0])
    if isinstance(actual, str) and isinstance(expected, str):
        return (actual > expected) - (actual < expected)
    return None


# --------------------------------------------------------------------------- text

def normalize_text(text: str) -> str:
    """Unicode NFKC, case-folded, punctuation and symbols replaced by spaces, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    out = [" " if unicodedata.category(ch)[0] in "PSZC" else ch for ch in text]
    return " ".join("".join(out).split())


def fmt(value: Any) -> str:
    """A value as it reads in a sentence."""
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat(sep=" ") if isinstance(value, _dt.datetime) else value.isoformat()
    if isinstance(value, str):
        if value == "" or value != value.strip():
            return repr(value)
        return value if len(value) <= 80 else value[:77] + "..."
    if isinstance(value, (list, tuple, set)):
        return ", ".join(fmt(v) for v in value)
    return str(value)


def join_or(items: list[str], word: str = "or") -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {word} " + items[-1]
