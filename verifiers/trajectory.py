"""Checks on the route the agent took (its trajectory), not on the world: ``forbidden`` steps."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import unquote_plus

from pydantic import model_validator

from .base import CheckSpec, Env, spec_error
from .verdict import Check


class ForbiddenSpec(CheckSpec):
    """A guard: no step of the trajectory opened a URL containing one of ``visited`` or sent one of
    the ``actions`` (by name, e.g. ``goto``). It earns nothing and, when broken, caps the score."""

    kind: Literal["forbidden"] = "forbidden"
    visited: list[str] = []
    actions: list[str] = []

    @model_validator(mode="after")
    def _something(self) -> ForbiddenSpec:
        self.guard = True
        if not self.visited and not self.actions:
            raise spec_error("a forbidden check names 'visited' URL parts and/or 'actions'")
        return self

    def default_name(self) -> str:
        return "forbidden"

    def describe(self) -> str:
        parts = [f"opened no page at {', '.join(self.visited)}"] if self.visited else []
        parts += [f"used no {', '.join(self.actions)} action"] if self.actions else []
        return self.sentence or "the agent " + " and ".join(parts)

    def evaluate(self, env: Env) -> list[Check]:
        urls = [str(env.resolve(v)).casefold() for v in self.visited]
        hits: list[str] = []
        for s in env.ctx.steps:
            action: Any = s.get("action") or {}
            name = action.get("action") if isinstance(action, dict) else None
            url = unquote_plus(str(s.get("url") or "")).casefold()
            target = unquote_plus(str(action.get("url") or "")).casefold() if isinstance(action, dict) else ""
            if name in self.actions:
                hits.append(f"step {s.get('step')}: {name}")
            elif any(u in url or (target and u in target) for u in urls):
                hits.append(f"step {s.get('step')}: {s.get('url') or target}")
        return [self.check(sentence=env.resolve(self.describe()), passed=not hits, expected=[], actual=hits[:10],
                           detail=None if not hits else f"{len(hits)} forbidden step(s): {hits[0]}")]


class RouteSpec(CheckSpec):
    """The route a change took: the trajectory opened a page at each of ``visited`` (URL parts; in
    that order with ``ordered``), for tasks that say how the work must be done ("through the list
    view's mass action", "from the record's page")."""

    kind: Literal["route"] = "route"
    visited: list[str]
    ordered: bool = False

    @model_validator(mode="after")
    def _something(self) -> RouteSpec:
        if not self.visited:
            raise spec_error("a route check names the URL parts the agent must have visited", "visited")
        return self

    def default_name(self) -> str:
        return "route"

    def describe(self) -> str:
        joiner = " then " if self.ordered else " and "
        return self.sentence or f"the agent went through {joiner.join(self.visited)}"

    def evaluate(self, env: Env) -> list[Check]:
        wanted = [unquote_plus(str(env.resolve(v))).casefold() for v in self.visited]
        urls = [unquote_plus(str(s.get("url") or "")).casefold() for s in env.ctx.steps]
        missing, pos = [], 0
        for w in wanted:
            hits = [i for i, u in enumerate(urls) if w in u and (not self.ordered or i >= pos)]
            if not hits:
                missing.append(w)
            elif self.ordered:
                pos = hits[0]
        return [self.check(sentence=env.resolve(self.describe()), passed=not missing, expected=wanted,
                           actual=[u for u in dict.fromkeys(urls)][:10],
                           detail=None if not missing else f"never opened {', '.join(missing)}"
                           + (" (in this order)" if self.ordered else ""))]
