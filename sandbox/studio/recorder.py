"""Turning a person's raw input into canonical actions, one step per meaningful input.

The live view forwards every event to the browser at once; the recorder decides what the events
*were*, in the action model. It keeps one step **pending** while the next event may still extend
it, and **commits** it when an event arrives that cannot:

- typed characters (and pastes) coalesce into one ``type`` step; a key combo (``ctrl+a``, ``Return``,
  ``shift+Tab``) is a ``key`` step, and the same combo again raises its ``repeat``;
- a press and release at (almost) the same point is a click with the held modifiers; a second and
  third press there, counted by the browser, turn it into ``double_click`` / ``triple_click``;
  a press, a move of more than a few pixels and a release is a ``left_click_drag`` with waypoints;
- wheel clicks at one point in one direction add up into one ``scroll``;
- a rest of the pointer that revealed something (the caller decides, see ``session.py``) is a
  ``mouse_move``, dropped again if the next press or wheel is at the same point (it moves there itself).

The caller records a committed step's screenshot *before* it forwards the event that committed it:
the page then still shows the committed step's effect and nothing later.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from sandbox.actions import MAX_KEY_REPEAT, BaseAction, parse_action
from sandbox.actions import keys as _keys

from .inputs import KeyPress, MouseDown, MouseMove, MouseRest, MouseUp, Paste, RawInput, Wheel

CLICK_SLOP = 4  # px a press may move and still be a click (and a repeated press still be the same spot)
SAME_POINT = 8  # px: a rest or wheel this close to the next press is the same place
MAX_WAYPOINTS = 8
MAX_TYPE = 2000  # characters in one ``type`` step
MOD_ORDER = ("ctrl", "alt", "shift", "super")
IGNORED_KEYS = frozenset({
    "Shift", "Control", "Alt", "Meta", "AltGraph", "OS", "Super", "Hyper", "Fn", "FnLock", "CapsLock",
    "NumLock", "ScrollLock", "Dead", "Process", "Unidentified", "Compose",
})  # fmt: skip
_CLICK_NAMES = {"left": "left_click", "right": "right_click", "middle": "middle_click"}
_REPEATS = ("left_click", "double_click", "triple_click")


def typed_char(ev: KeyPress) -> str | None:
    """The character a key press types, or None when it is a named key or a combo."""
    if any(m in ev.mods for m in ("ctrl", "alt", "super")):
        return None
    key = ev.key
    if len(key) == 1 or (len(key) <= 4 and not key.isascii()):
        return key if key.isprintable() else None
    return None


def key_combo(ev: KeyPress) -> str | None:
    """Canonical combo of a key press (``ctrl+a``, ``shift+Tab``, ``Return``), None for keys to ignore."""
    if ev.key in IGNORED_KEYS:
        return None
    mods = [m for m in MOD_ORDER if m in ev.mods]
    base = ev.key
    code = ev.code or ""
    chorded = any(m in mods for m in ("ctrl", "alt", "super"))
    if chorded and code.startswith("Key") and len(code) == 4:
        base = code[3].lower()  # ctrl+shift+A arrives as key 'A': name the key, not the character
    elif chorded and code.startswith("Digit") and len(code) == 6:
        base = code[5]
    elif len(base) == 1 and "shift" in mods:
        mods.remove("shift")  # shift+'A' is the character 'A' (its own key name)
    try:
        name = _keys.normalize_key(base)
    except Exception:  # noqa: BLE001 - a key our vocabulary has no name for: not recordable
        return None
    if name in mods:
        return None
    return "+".join([*mods, name])


def _dist(ax: float, ay: float, bx: float, by: float) -> float:
    return math.hypot(ax - bx, ay - by)


@dataclass
class _Press:
    down: MouseDown
    path: list[tuple[int, int]] = field(default_factory=list)
    repeat_of: dict[str, Any] | None = None  # the pending click this press may turn into a double click


class Recorder:
    """Feed raw inputs in order; get back the canonical actions they complete."""

    def __init__(self) -> None:
        self.pending: dict[str, Any] | None = None  # canonical action as a dict, still growing
        self._press: _Press | None = None

    # -- public ----------------------------------------------------------------------------------
    def feed(self, ev: RawInput) -> list[BaseAction]:
        """Account for one event; return the steps it completes (usually none or one)."""
        if isinstance(ev, KeyPress):
            return self._key(ev)
        if isinstance(ev, Paste):
            return self._text(ev.text)
        if isinstance(ev, MouseDown):
            return self._down(ev)
        if isinstance(ev, MouseMove):
            if self._press is not None:
                last = self._press.path[-1] if self._press.path else (self._press.down.x, self._press.down.y)
                if _dist(ev.x, ev.y, *last) >= 2:
                    self._press.path.append((ev.x, ev.y))
            return []
        if isinstance(ev, MouseUp):
            return self._up(ev)
        if isinstance(ev, Wheel):
            return self._wheel(ev)
        if isinstance(ev, MouseRest):
            return self._rest(ev)
        raise TypeError(f"not a raw input: {ev!r}")

    def flush(self) -> list[BaseAction]:
        """Commit the pending step (a trailing hover is dropped: it changes nothing)."""
        pending, self.pending = self.pending, None
        self._press = None
        if pending is None or pending["action"] == "mouse_move":
            return []
        return [parse_action(pending)]

    def discard(self) -> None:
        """Forget the pending step and any press in progress (undo, restart)."""
        self.pending = None
        self._press = None

    def describe_pending(self) -> dict[str, Any] | None:
        return dict(self.pending) if self.pending is not None else None

    # -- helpers ---------------------------------------------------------------------------------
    def _commit(self, replace: dict[str, Any] | None = None) -> list[BaseAction]:
        pending, self.pending = self.pending, replace
        return [parse_action(pending)] if pending is not None else []

    def _drop_move_at(self, x: int, y: int) -> None:
        p = self.pending
        if p is not None and p["action"] == "mouse_move" and _dist(p["x"], p["y"], x, y) <= SAME_POINT:
            self.pending = None  # the next action moves there by itself

    # -- keyboard --------------------------------------------------------------------------------
    def _text(self, text: str) -> list[BaseAction]:
        p = self.pending
        if p is not None and p["action"] == "type" and len(p["text"]) + len(text) <= MAX_TYPE:
            p["text"] += text
            return []
        return self._commit({"action": "type", "text": text})

    def _key(self, ev: KeyPress) -> list[BaseAction]:
        char = typed_char(ev)
        if char is not None:
            return self._text(char)
        combo = key_combo(ev)
        if combo is None:
            return []
        p = self.pending
        if p is not None and p["action"] == "key" and p["key"] == combo and p.get("repeat", 1) < MAX_KEY_REPEAT:
            p["repeat"] = p.get("repeat", 1) + 1
            return []
        return self._commit({"action": "key", "key": combo})

    # -- mouse -----------------------------------------------------------------------------------
    def _down(self, ev: MouseDown) -> list[BaseAction]:
        p = self.pending
        repeat_of = None
        if (
            p is not None
            and ev.button == "left"
            and p["action"] in _REPEATS[:-1]
            and ev.count == _REPEATS.index(p["action"]) + 2
            and _dist(p["x"], p["y"], ev.x, ev.y) <= CLICK_SLOP
        ):
            repeat_of = p  # the browser counts this press as the next click of a double/triple click
            committed: list[BaseAction] = []
        else:
            self._drop_move_at(ev.x, ev.y)
            committed = self._commit()
        self._press = _Press(down=ev, repeat_of=repeat_of)
        return committed

    def _up(self, ev: MouseUp) -> list[BaseAction]:
        press, self._press = self._press, None
        if press is None:
            return []
        d = press.down
        far = _dist(d.x, d.y, ev.x, ev.y) > CLICK_SLOP or any(_dist(d.x, d.y, x, y) > CLICK_SLOP for x, y in press.path)
        mods = [m for m in MOD_ORDER if m in d.mods]
        if far and d.button == "left":
            action: dict[str, Any] = {
                "action": "left_click_drag", "start_x": d.x, "start_y": d.y, "end_x": ev.x, "end_y": ev.y,
            }  # fmt: skip
            waypoints = [pt for pt in press.path if pt != (ev.x, ev.y)]
            if len(waypoints) > MAX_WAYPOINTS:
                stride = len(waypoints) / MAX_WAYPOINTS
                waypoints = [waypoints[int(i * stride)] for i in range(MAX_WAYPOINTS)]
            if waypoints:
                action["path"] = [{"x": x, "y": y} for x, y in waypoints]
            if mods:
                action["modifiers"] = mods
            return self._commit(action)
        if press.repeat_of is not None and press.repeat_of is self.pending:
            self.pending["action"] = _REPEATS[_REPEATS.index(self.pending["action"]) + 1]
            return []
        action = {"action": _CLICK_NAMES[d.button], "x": d.x, "y": d.y}
        if mods:
            action["modifiers"] = mods
        return self._commit(action)

    def _wheel(self, ev: Wheel) -> list[BaseAction]:
        p = self.pending
        mods = [m for m in MOD_ORDER if m in ev.mods]
        if (
            p is not None
            and p["action"] == "scroll"
            and p["direction"] == ev.direction
            and list(p.get("modifiers", [])) == mods
            and _dist(p["x"], p["y"], ev.x, ev.y) <= SAME_POINT
        ):
            p["amount"] += ev.clicks
            return []
        self._drop_move_at(ev.x, ev.y)
        action: dict[str, Any] = {"action": "scroll", "x": ev.x, "y": ev.y, "direction": ev.direction, "amount": ev.clicks}
        if mods:
            action["modifiers"] = mods
        return self._commit(action)

    def _rest(self, ev: MouseRest) -> list[BaseAction]:
        if self._press is not None:
            return []  # resting mid-drag is part of the drag
        p = self.pending
        if p is not None:
            x, y = p.get("x", p.get("end_x")), p.get("y", p.get("end_y"))
            if x is not None and _dist(x, y, ev.x, ev.y) <= SAME_POINT:
                return []  # resting where the last action happened: nothing new (its effects are its own)
        return self._commit({"action": "mouse_move", "x": ev.x, "y": ev.y})


__all__ = ["CLICK_SLOP", "Recorder", "key_combo", "typed_char"]
