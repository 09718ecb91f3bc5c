"""Mapping coordinates between the screenshot an agent saw and the real viewport."""

from __future__ import annotations

import math

from .errors import ActionError
from .model import BaseAction, Zoom
from .parse import parse_action

_X_FIELDS = ("x", "start_x", "end_x", "x0", "x1")
_Y_FIELDS = ("y", "start_y", "end_y", "y0", "y1")


def off_screen(action: BaseAction, size: tuple[int, int]) -> str | None:
    """A message if any coordinate of ``action`` falls outside a screen of ``size`` (width, height)."""
    w, h = size
    data = action.model_dump()
    points = [(data.get(x), data.get(y), x) for x, y in zip(_X_FIELDS, _Y_FIELDS)]
    points += [(p["x"], p["y"], "path") for p in data.get("path") or ()]
    for x, y, name in points:
        if x is None and y is None:
            continue
        edge = 1 if name == "x1" else 0  # a zoom region's far corner may touch the edge
        if (x is not None and not 0 <= x < w + edge) or (y is not None and not 0 <= y < h + edge):
            return f"coordinate ({x}, {y}) is outside the screen ({w}x{h} pixels): x must be 0-{w - 1} and y 0-{h - 1}"
    return None


def check_on_screen(actions: BaseAction | list[BaseAction], size: tuple[int, int] | None) -> None:
    """Raise :class:`ActionError` if an action points outside a screen of ``size`` (no check without a size)."""
    if size is None:
        return
    for action in actions if isinstance(actions, list) else [actions]:
        message = off_screen(action, size)
        if message:
            raise ActionError(message)


def _round(value: float) -> int:
    return int(math.floor(value + 0.5))  # half up, unlike round()'s half-to-even, so 0.5 -> 1 everywhere


def scale_action(action: BaseAction, fx: float, fy: float | None = None) -> BaseAction:
    """Map coordinates between two pixel spaces: each x times ``fx``, each y times ``fy``, rounded to ints.

    For an agent that sees a screenshot resized to W' x H' of a W x H viewport, use
    ``scale_action(a, W / W', H / H')`` before executing. Actions without coordinates come back unchanged.
    """
    fy = fx if fy is None else fy
    for factor in (fx, fy):
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not math.isfinite(factor) or factor <= 0:
            raise ActionError(f"scale factors must be positive numbers, got {factor!r}")
    data = action.model_dump()
    changed = False
    for fields, factor in ((_X_FIELDS, fx), (_Y_FIELDS, fy)):
        for field in fields:
            if data.get(field) is not None:
                data[field] = _round(data[field] * factor)
                changed = True
    if data.get("path"):
        data["path"] = [{"x": _round(p["x"] * fx), "y": _round(p["y"] * fy)} for p in data["path"]]
    if not changed:
        return action
    if isinstance(action, Zoom):  # keep a region that rounding squeezed to nothing at least 1 px wide
        data["x1"] = max(data["x1"], data["x0"] + 1)
        data["y1"] = max(data["y1"], data["y0"] + 1)
    return parse_action(data)
