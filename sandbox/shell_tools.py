"""The shell CLI over the apps' tools (`sandbox app ...`), for agents that work in a terminal.

The episode is named by the environment: ``SANDBOX_WORLD`` (a world of the local store, see
``SANDBOX_HOME``) and ``SANDBOX_PERSONA`` (the user the tools act as); ``sandbox app start`` forks a
task's world and prints them as ``export`` lines, with ``SANDBOX_TASK``, ``SANDBOX_SEED`` and
``SANDBOX_START`` (the change log position the grade starts from) for ``sandbox app verify``.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from apps_web.tools import Tool

ENV_WORLD, ENV_PERSONA, ENV_TASK, ENV_SEED, ENV_START = "SANDBOX_WORLD", "SANDBOX_PERSONA", "SANDBOX_TASK", "SANDBOX_SEED", "SANDBOX_START"


class ShellError(Exception):
    """A usage error: the message says what was wrong and what to type instead."""


def parse_fields(args: list[str]) -> dict[str, Any]:
    """``--stage "Closed Won" --amount 12000 --is-flagged`` -> {"stage": "Closed Won", "amount": 12000, "is_flagged": True}.
    Values that read as JSON (numbers, true/false/null, lists, objects) are taken as such."""
    out: dict[str, Any] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--") or len(arg) == 2:
            raise ShellError(f"unexpected {arg!r}: give fields as --name value")
        name, eq, value = arg[2:].partition("=")
        name = name.replace("-", "_")
        if not eq:
            if i + 1 < len(args) and not args[i + 1].startswith("--"):
                value, i = args[i + 1], i + 1
            else:
                value = "true"
        out[name] = _value(value)
        i += 1
    return out


def _value(text: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if not isinstance(value, str) else text


def tool_for(tools: dict[str, Tool], app: str, obj: str, verb: str) -> Tool:
    """The tool of ``sandbox app APP OBJECT VERB``: ``<app>_<verb>_<object>`` (or ``<app>_<object>_<verb>``)."""
    for name in (f"{app}_{verb}_{obj}", f"{app}_{obj}_{verb}", f"{app}_{verb}_{obj}s"):
        if name in tools:
            return tools[name]
    mine = sorted(n for n in tools if n.startswith(f"{app}_"))
    if not mine:
        raise ShellError(f"no app {app!r} (apps: {', '.join(sorted({t.app for t in tools.values()}))})")
    near = [n for n in mine if obj.rstrip("s") in n] or mine
    raise ShellError(f"{app} has no {verb!r} for {obj!r}; tools: {', '.join(near)}")


def table(data: Any) -> str:
    """A plain-text table of a list result (``items`` or ``result``), else indented JSON."""
    rows = data.get("items", data.get("result")) if isinstance(data, dict) else data
    if rows == [] and isinstance(data, dict) and "total" in data:
        return f"(0 of {data['total']})"  # nothing matched: no table, not the JSON envelope either
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        return json.dumps(data, indent=2, ensure_ascii=False, default=str)
    columns = list(rows[0])[:8]
    cells = [[_cell(r.get(c)) for c in columns] for r in rows]
    widths = [min(32, max(len(c), *(len(row[i]) for row in cells))) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w)[:w] for c, w in zip(columns, widths))]
    lines += ["  ".join(v.ljust(w)[:w] for v, w in zip(row, widths)) for row in cells]
    if isinstance(data, dict) and "total" in data:
        lines.append(f"({len(rows)} of {data['total']})")
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if isinstance(value, dict):
        value = value.get("display_value") or value.get("value")
    return "" if value is None else str(value).replace("\n", " ")


def episode_env(env: Mapping[str, str]) -> tuple[str, str | None]:
    """The episode's world and persona, from the command's environment."""
    world = env.get(ENV_WORLD)
    if not world:
        raise ShellError(f"no episode: set {ENV_WORLD} and {ENV_PERSONA} (`eval \"$(sandbox app start --task TASK)\"` does it)")
    return world, env.get(ENV_PERSONA) or None
