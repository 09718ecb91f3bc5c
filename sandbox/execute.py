"""Running canonical actions with Playwright's mouse and keyboard at real viewport coordinates.

The executor only acts; settling and observing are the episode's business. Problems the agent can
fix (a point outside the screen, an unknown element id, a page that does not exist) come back as an
:class:`ExecResult` error message, never as an exception, so the episode goes on.

No action can break or stall the episode:

- every action runs within a time budget (:meth:`Executor.run`); past it the action is cut and the
  cut is reported. Long actions are made of short calls (typing goes in chunks of characters), so a
  cut stops the work instead of leaving it running in the browser;
- every key and mouse button the executor presses is recorded until it is released; whatever fails
  or is cut, whatever is still held is released before the step ends (a button the agent holds on
  purpose with ``left_mouse_down`` stays down until its ``left_mouse_up``);
- ``goto`` only navigates to the app host, checked with the browser's own URL rules
  (:class:`sandbox.actions.urls.AppUrls`); a refused URL leaves the tab where it was.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .actions import ActionError
from .actions import keys as keymap
from .actions import model as A
from .actions.urls import AppUrls

if TYPE_CHECKING:  # pragma: no cover
    from .apphost import AppHost

# Pointer-driven drag and drop needs intermediate moves; a few per drag are enough for pointermove
# handlers and for Chromium's drag threshold.
DRAG_STEP_PX = 40
MAX_DRAG_STEPS = 12
ELEMENT_TIMEOUT_MS = 3000
NAVIGATION_TIMEOUT_MS = 15000
DEFAULT_ACTION_BUDGET_S = A.DEFAULT_ACTION_SECONDS  # an action longer than this is cut (SettleBudget.action sets it)
TYPE_CHUNK_CHARS = 40  # typed per Playwright call: a cut stops typing within one chunk
RELEASE_TIMEOUT_S = 2.0  # for each key or button released after a failure
CUT_GRACE_S = 2.0  # for a cut action to unwind (its finally blocks release what it held)

_BUTTONS = {"left_click": "left", "right_click": "right", "middle_click": "middle", "double_click": "left", "triple_click": "left"}
_COUNTS = {"double_click": 2, "triple_click": 3}
POINTER_ACTIONS = frozenset({
    "left_click", "right_click", "middle_click", "double_click", "triple_click", "mouse_move",
    "left_click_drag", "left_mouse_down", "left_mouse_up", "scroll",
})  # fmt: skip
# Actions that cannot change the page: no settling needed after them.
PASSIVE_ACTIONS = frozenset({"screenshot", "cursor_position", "zoom", "answer", "report_infeasible"})
FINAL_ACTIONS = frozenset({"answer", "report_infeasible"})


@dataclass
class ExecResult:
    error: str | None = None
    done: bool = False  # answer / report_infeasible
    answer: str | None = None
    infeasible_reason: str | None = None
    zoom: tuple[int, int, int, int] | None = None  # region to capture, in viewport pixels
    cursor: tuple[int, int] | None = None
    cut: bool = False  # the action ran past its time budget and was stopped
    extra: dict[str, Any] = field(default_factory=dict)


class ActionFailed(Exception):
    """A problem the agent can fix; its message becomes ``last_action_error``."""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    for marker in ("\nCall log:", "\n=========="):
        text = text.split(marker, 1)[0]
    return text.splitlines()[0] if text else type(exc).__name__


class Executor:
    """Executes actions on the episode's active page; tracks the mouse position like a real pointer,
    and every key and button it holds."""

    def __init__(self, viewport: tuple[int, int], host: AppHost, typing: str = "keys") -> None:
        self.viewport = viewport
        self.host = host
        self.urls = AppUrls(host.port)
        self.typing = typing
        self.mouse = (0, 0)
        self.buttons_down: set[str] = set()  # held by the agent on purpose (left_mouse_down)
        self.keys_held: list[str] = []  # Playwright key names pressed and not yet released
        self.buttons_held: list[str] = []  # buttons pressed during the running action
        self.files: Any = None  # the episode's EpisodeFiles (sandbox.files): upload_file answers its chooser

    # -- checks --------------------------------------------------------------------------------------
    def _point(self, x: int | None, y: int | None, what: str = "coordinate") -> tuple[int, int]:
        if x is None or y is None:
            return self.mouse
        w, h = self.viewport
        if not (0 <= x < w and 0 <= y < h):
            raise ActionFailed(
                f"{what} ({x}, {y}) is outside the screen ({w}x{h} pixels): x must be 0-{w - 1} and y 0-{h - 1}"
            )
        return x, y

    def _check_url(self, page: Any, url: str) -> str:
        try:
            return self.urls.resolve(url, page.url)
        except ActionError as exc:
            raise ActionFailed(str(exc)) from None

    # -- running -------------------------------------------------------------------------------------
    async def run(self, page: Any, action: A.BaseAction, budget: float | None = DEFAULT_ACTION_BUDGET_S) -> ExecResult:
        """Run ``action``; past ``budget`` seconds it is cut. Nothing stays held afterwards."""
        if budget is not None and action.action in ("wait", "hold_key") and action.duration >= budget:  # type: ignore[attr-defined]
            return ExecResult(
                error=f"{action.action} duration {action.duration:g} s is not shorter than this environment's "  # type: ignore[attr-defined]
                f"step budget of {budget:g} s; wait in shorter steps"
            )
        task = asyncio.ensure_future(self._guarded(page, action))
        try:
            done, _ = await asyncio.wait({task}, timeout=budget)
            if task in done:
                result = task.result()
            else:
                task.cancel()
                done, _ = await asyncio.wait({task}, timeout=CUT_GRACE_S)
                if task in done and not task.cancelled() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
                if task not in done:  # still unwinding: let it finish on its own, quietly
                    task.add_done_callback(lambda t: t.cancelled() or t.exception())
                result = ExecResult(
                    error=f"{action.action} was cut after {budget:g} s, this environment's time budget for one action; "
                    "the page is as the action left it (nothing is held down). Send shorter actions.",
                    cut=True,
                )
        finally:
            if self.keys_held or self.buttons_held:
                await self.release(page)
        return result

    async def _guarded(self, page: Any, action: A.BaseAction) -> ExecResult:
        try:
            return await self._run(page, action) or ExecResult()
        except ActionFailed as exc:
            return ExecResult(error=str(exc))
        except ActionError as exc:
            return ExecResult(error=str(exc))
        except Exception as exc:  # Playwright errors: keep the first line, the call log is noise to an agent
            if "Target page, context or browser has been closed" in str(exc):
                raise
            return ExecResult(error=f"{action.action} failed: {_first_line(exc)}")

    async def release(self, page: Any) -> None:
        """Release every key and button still held by a failed or cut action (each call bounded)."""
        keys, self.keys_held = self.keys_held, []
        buttons, self.buttons_held = self.buttons_held, []
        for key in reversed(keys):
            await _bounded(page.keyboard.up(key))
        for button in dict.fromkeys(reversed(buttons)):
            await _bounded(page.mouse.up(button=button))
            if button == "left":
                self.buttons_down.discard("left")

    # -- holding keys and buttons: recorded before the call, so a cut mid-call still releases ------------
    async def _key_down(self, page: Any, key: str) -> None:
        self.keys_held.append(key)
        await page.keyboard.down(key)

    async def _key_up(self, page: Any, key: str) -> None:
        await page.keyboard.up(key)
        _forget(self.keys_held, key)

    async def _holding(self, page: Any, keys: list[str], body: Any) -> None:
        """Hold ``keys`` (in order) while ``body`` runs; released in reverse order whatever happens."""
        pressed: list[str] = []
        try:
            for key in keys:
                pressed.append(key)
                await self._key_down(page, key)
            await body()
        finally:
            for key in reversed(pressed):
                await _bounded(self._key_up(page, key))

    async def _with_modifiers(self, page: Any, modifiers: tuple[str, ...], body: Any) -> None:
        await self._holding(page, [keymap.MODIFIERS[m] for m in modifiers], body)

    async def _press(self, page: Any, combo: list[str]) -> None:
        """Press one combo (canonical key names): its keys down in order, then up in reverse."""
        keys = [keymap.to_playwright_key(k) for k in combo]
        if len(keys) == 1:
            await page.keyboard.press(keys[0])  # down and up in one call
            return

        async def last() -> None:
            await page.keyboard.press(keys[-1])

        await self._holding(page, keys[:-1], last)

    async def _run(self, page: Any, a: A.BaseAction) -> ExecResult | None:
        name = a.action
        mouse, keyboard = page.mouse, page.keyboard

        if name in _BUTTONS:
            x, y = self._point(a.x, a.y)

            async def click() -> None:
                await mouse.click(x, y, button=_BUTTONS[name], click_count=_COUNTS.get(name, 1))

            await self._with_modifiers(page, a.modifiers, click)
            self.mouse = (x, y)
        elif name == "mouse_move":
            x, y = self._point(a.x, a.y)
            await self._with_modifiers(page, a.modifiers, lambda: mouse.move(x, y))
            self.mouse = (x, y)
        elif name == "left_click_drag":
            start = self._point(a.start_x, a.start_y, "start point")
            points = [self._point(p.x, p.y, "path point") for p in a.path] + [self._point(a.end_x, a.end_y, "end point")]

            async def drag() -> None:
                await mouse.move(*start)
                self.buttons_held.append("left")
                await mouse.down()
                here = start
                try:
                    for point in points:
                        dist = math.hypot(point[0] - here[0], point[1] - here[1])
                        steps = max(2, min(MAX_DRAG_STEPS, math.ceil(dist / DRAG_STEP_PX)))
                        await mouse.move(*point, steps=steps)
                        here = point
                        self.mouse = here
                finally:
                    await _bounded(mouse.up())
                    _forget(self.buttons_held, "left")

            await self._with_modifiers(page, a.modifiers, drag)
            self.mouse = points[-1]
        elif name in ("left_mouse_down", "left_mouse_up"):
            x, y = self._point(a.x, a.y)
            if (x, y) != self.mouse:
                await mouse.move(x, y)
            self.mouse = (x, y)
            if name == "left_mouse_down":
                if "left" in self.buttons_down:
                    raise ActionFailed("the left mouse button is already down; send left_mouse_up first")
                self.buttons_held.append("left")  # released if this action fails or is cut
                await mouse.down()
                _forget(self.buttons_held, "left")
                self.buttons_down.add("left")
            else:
                if "left" not in self.buttons_down:
                    raise ActionFailed("the left mouse button is not down; send left_mouse_down first")
                await mouse.up()
                self.buttons_down.discard("left")
        elif name == "upload_file":
            if self.files is None:
                raise ActionFailed("file upload is not available in this environment")
            await self.files.choose(list(a.files))
        elif name == "scroll":
            x, y = self._point(a.x, a.y)
            px = a.amount * A.SCROLL_PIXELS_PER_CLICK
            dx, dy = {"up": (0, -px), "down": (0, px), "left": (-px, 0), "right": (px, 0)}[a.direction]

            async def wheel() -> None:
                if (x, y) != self.mouse:
                    await mouse.move(x, y)
                await mouse.wheel(dx, dy)

            await self._with_modifiers(page, a.modifiers, wheel)
            self.mouse = (x, y)
        elif name == "type":
            write = keyboard.insert_text if self.typing == "insert" else keyboard.type
            for chunk in _chunks(a.text, TYPE_CHUNK_CHARS):
                await write(chunk)
        elif name == "key":
            combos = keymap.parse_keys(a.key)
            for _ in range(a.repeat):
                for combo in combos:
                    await self._press(page, combo)
        elif name == "hold_key":
            held = [keymap.to_playwright_key(k) for k in keymap.parse_keys(a.key)[0]]
            # the agent asked to hold the keys this long
            await self._holding(page, held, lambda: asyncio.sleep(a.duration))
        elif name == "wait":
            await asyncio.sleep(a.duration)  # the agent asked to wait; settling follows as usual
        elif name in ("screenshot",):
            pass
        elif name == "cursor_position":
            return ExecResult(cursor=self.mouse)
        elif name == "zoom":
            x0, y0 = self._point(a.x0, a.y0, "zoom corner")
            w, h = self.viewport
            if a.x1 > w or a.y1 > h:
                raise ActionFailed(f"zoom corner ({a.x1}, {a.y1}) is outside the screen ({w}x{h} pixels)")
            return ExecResult(zoom=(x0, y0, a.x1 - x0, a.y1 - y0))
        elif name == "goto":
            target = self._check_url(page, a.url)
            response = await page.goto(target, wait_until="load", timeout=NAVIGATION_TIMEOUT_MS)
            if response is not None and response.status >= 400:
                return ExecResult(extra={"status": response.status})
        elif name in ("back", "forward"):
            go = page.go_back if name == "back" else page.go_forward
            before = page.url
            response = await go(wait_until="load", timeout=NAVIGATION_TIMEOUT_MS)
            if response is None and page.url == before:  # None also means a same-document move
                raise ActionFailed(f"there is no {'previous' if name == 'back' else 'next'} page in this tab's history")
        elif name in A.ELEMENT_ACTIONS:
            await self._element(page, a)
        elif name == "answer":
            return ExecResult(done=True, answer=a.text)
        elif name == "report_infeasible":
            return ExecResult(done=True, infeasible_reason=a.reason)
        else:  # pragma: no cover - every action of the model is handled above
            raise ActionFailed(f"action {name!r} is not supported by this environment")
        return None

    async def _element(self, page: Any, a: A.BaseAction) -> None:
        element_id = a.element_id
        locator = page.locator(f"aria-ref={element_id}")
        try:
            count = await locator.count()
        except Exception:
            count = 0
        if count == 0:
            raise ActionFailed(
                f"unknown element id {element_id!r}: ids come from the latest accessibility tree or element list "
                "of this page; observe again (with axtree or marks) to get current ids"
            )
        opts = {"timeout": ELEMENT_TIMEOUT_MS}
        name = a.action
        box = None
        if name in ("click_element", "hover_element"):  # where the pointer ends up (cursor_position)
            try:
                box = await locator.bounding_box(timeout=ELEMENT_TIMEOUT_MS)
            except Exception:
                box = None
        if name == "click_element":
            await locator.click(
                button=a.button, click_count=a.count, modifiers=keymap.modifiers_to_playwright(a.modifiers), **opts
            )
        elif name == "fill_element":
            await locator.fill(a.text, **opts)
        elif name == "select_option":
            choice = a.value if a.value is not None else a.label
            values = list(choice) if isinstance(choice, tuple) else [choice]
            if a.value is not None:
                await locator.select_option(value=values, **opts)
            else:
                await locator.select_option(label=values, **opts)
        elif name == "hover_element":
            await locator.hover(**opts)
        elif name == "focus_element":
            await locator.focus(**opts)
        if box:
            self.mouse = (int(box["x"] + box["width"] / 2), int(box["y"] + box["height"] / 2))


def _forget(held: list[str], item: str) -> None:
    if item in held:  # a cut action may unwind after release() already let go of it
        held.remove(item)


def _chunks(text: str, size: int) -> list[str]:
    """``text`` in pieces of about ``size`` characters, never splitting a CRLF."""
    out, start = [], 0
    while start < len(text):
        end = min(start + size, len(text))
        if end < len(text) and text[end - 1] == "\r" and text[end] == "\n":
            end += 1
        out.append(text[start:end])
        start = end
    return out


async def _bounded(call: Any, timeout: float = RELEASE_TIMEOUT_S) -> None:
    """A release call that cannot stall the step (a page that stopped answering, a closed page)."""
    try:
        await asyncio.wait_for(call, timeout)
    except Exception:
        pass


__all__ = ["DEFAULT_ACTION_BUDGET_S", "ActionFailed", "ExecResult", "Executor", "FINAL_ACTIONS", "PASSIVE_ACTIONS", "POINTER_ACTIONS"]
