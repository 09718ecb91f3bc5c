"""The oracle player: turns task steps into canonical actions at run time, like a person would.

A step names its target the way a person finds it on screen (a button's name, a field's label,
some text). The player finds the element on the live page, scrolls it into view with the mouse
wheel when it is off screen, checks that nothing covers it, and sends plain computer actions
(``left_click(x, y)``, ``key ctrl+a``, ``type``, ``scroll``, ``left_click_drag``...) to the
environment, so the trajectory holds real coordinates that any pixel agent could have produced.
Waiting is for real conditions (an element appears, the URL changes), never fixed sleeps.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable
from urllib.parse import urljoin

from sandbox.actions import BaseAction, parse_action
from sandbox.actions.model import MAX_KEY_REPEAT
from sandbox.observe import TWO_FRAMES_JS

from .model import (
    AnswerStep,
    Back,
    Click,
    Drag,
    Fill,
    Goto,
    Infeasible,
    KeyPress,
    Lookup,
    RawAction,
    ToolStep,
    ScrollTo,
    Select,
    Target,
    TypeText,
    WaitFor,
    _Step,
)

StepFn = Callable[[BaseAction], Awaitable[bool]]  # sends one action; True when the episode ended
DEFAULT_TIMEOUT_S = 10.0
MAX_SCROLLS = 25
EDGE = 8  # pixels kept clear of the viewport's edges


class OracleError(RuntimeError):
    """A step could not be played (target missing, ambiguous, covered, or its effect not seen)."""

    def __init__(self, index: int, step: _Step, message: str, url: str = "") -> None:
        self.index = index
        self.step = step
        self.url = url
        desc = step.model_dump(exclude_none=True, exclude_defaults=True)
        super().__init__(f"step {index} {desc}: {message}" + (f" (page {url})" if url else ""))


class _Fail(Exception):
    pass


@dataclass
class PlayResult:
    actions: list[dict[str, Any]] = field(default_factory=list)
    ended: bool = False  # the episode ended (answer, infeasible, max steps)


# An element's own text, without its children's (an option's name line without its detail line).
_OWN_TEXT_JS = "els => els.map(e => [...e.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim())"

# One round trip per look at the page: how many elements match, and for the one that does, where it
# is, what a click at the chosen point would hit, its scroll container and its value.
_PROBE_JS = """
(els, at) => {
  const out = {n: els.length};
  if (els.length !== 1) return out;
  const el = els[0];
  const r = el.getBoundingClientRect();
  out.box = {x: r.left, y: r.top, width: r.width, height: r.height};
  const vw = window.innerWidth, vh = window.innerHeight;
  out.viewport = [vw, vh];
  let x = r.left + r.width / 2;
  if (at === 'start') {
    const pad = parseFloat(getComputedStyle(el).paddingLeft) || 0;
    x = r.left + Math.min(pad + 6, r.width / 4);
  }
  const y = r.top + r.height / 2;
  out.point = [Math.floor(x), Math.floor(y)];
  const hit = (x >= 0 && y >= 0 && x < vw && y < vh) ? document.elementFromPoint(x, y) : null;
  if (!hit) out.covered = 'off screen';
  else if (el === hit || el.contains(hit) || hit.control === el
           || (el.labels && Array.from(el.labels).some(l => l === hit || l.contains(hit)))) out.covered = '';
  else {
    const d = hit.closest('[aria-label],[id],button,a,label,dialog') || hit;
    out.covered = (d.tagName || '').toLowerCase() + (d.id ? '#' + d.id : '')
      + (d.getAttribute('aria-label') ? ' "' + d.getAttribute('aria-label') + '"' : '');
  }
  out.area = {x0: 0, y0: 0, x1: vw, y1: vh};
  let scroller = document.scrollingElement || document.documentElement;
  for (let node = el.parentElement; node && node !== document.body && node !== document.documentElement; node = node.parentElement) {
    const s = getComputedStyle(node);
    const canY = /(auto|scroll)/.test(s.overflowY) && node.scrollHeight > node.clientHeight + 1;
    const canX = /(auto|scroll)/.test(s.overflowX) && node.scrollWidth > node.clientWidth + 1;
    if (!canY && !canX) continue;
    const b = node.getBoundingClientRect();
    const a = {x0: Math.max(b.left, 0), y0: Math.max(b.top, 0), x1: Math.min(b.right, vw), y1: Math.min(b.bottom, vh)};
    if (a.x1 - a.x0 > 4 && a.y1 - a.y0 > 4) { out.area = a; scroller = node; break; }
  }
  // How far the scroll container can still move each way: a wheel scroll with room left is only slow to show.
  out.room = {up: scroller.scrollTop, left: scroller.scrollLeft,
              down: scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop,
              right: scroller.scrollWidth - scroller.clientWidth - scroller.scrollLeft};
  out.kind = el.tagName === 'INPUT' ? (el.type || 'text').toLowerCase() : el.tagName.toLowerCase();
  if ('value' in el) out.value = el.value;
  if (el.tagName === 'SELECT') {
    out.options = Array.from(el.options).map(o => o.text.trim());
    out.selected = el.selectedIndex >= 0 ? el.options[el.selectedIndex].text.trim() : '';
  }
  out.controls = el.getAttribute('aria-controls');
  return out;
}
"""


def _navigating(error: Exception) -> bool:
    text = str(error)
    return "Execution context was destroyed" in text or "navigat" in text.lower() and "context" in text.lower()


TYPE_BURST = 400  # characters per typed action: a long text goes in bursts, so no one action outlasts its time budget on a busy machine
SCROLL_SETTLE_S = 2.0  # how long a wheel scroll may take to show under load before the target is called unreachable


def type_bursts(text: str, size: int = TYPE_BURST) -> list[str]:
    """``text`` in consecutive parts of at most ``size`` characters, each ending after a space when
    one falls in the part's last quarter; joined they give ``text`` back."""
    parts = []
    while len(text) > size:
        cut = text.rfind(" ", size * 3 // 4, size) + 1 or size
        parts.append(text[:cut])
        text = text[cut:]
    return [*parts, text] if text or not parts else parts


def locate(base: Any, t: Target) -> Any:
    """The Playwright locator of a target under ``base`` (a page or a locator): visible matches only.
    The one resolution of targets, shared with the studio, which checks a drafted target with it."""
    if t.within is not None:
        base = locate(base, t.within)
    if t.role is not None:
        kw: dict[str, Any] = {}
        if t.name is not None:
            kw = {"name": t.name, "exact": True if t.exact is None else t.exact}
        loc = base.get_by_role(t.role, **kw)
    elif t.label is not None:
        loc = base.get_by_label(t.label, exact=bool(t.exact))
    elif t.text is not None:
        loc = base.get_by_text(t.text, exact=True if t.exact is None else t.exact)
    elif t.placeholder is not None:
        loc = base.get_by_placeholder(t.placeholder, exact=bool(t.exact))
    else:
        loc = base.locator(t.css)
    loc = loc.filter(visible=True)
    if t.nth is not None:
        loc = loc.nth(t.nth)
    return loc


class Player:
    """Plays steps on a page through ``step`` (the environment's step, or any executor).

    ``page`` is a callable returning the live Playwright page (async API); ``scale`` maps viewport
    pixels to the agent's screenshot pixels when the environment resizes screenshots.
    """

    def __init__(self, page: Callable[[], Any], step: StepFn, *, base_url: str = "", timeout_s: float = DEFAULT_TIMEOUT_S,
                 scale: tuple[float, float] = (1.0, 1.0)) -> None:
        self._page = page
        self._step = step
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.scale = scale
        self.result = PlayResult()
        self.current = ""  # the step being played (for a diagnosis when an episode stalls)

    @property
    def page(self) -> Any:
        return self._page()

    # -- sending actions ------------------------------------------------------------------------------
    async def send(self, data: dict[str, Any]) -> None:
        if self.result.ended:
            raise _Fail("the episode already ended")
        sx, sy = self.scale
        if (sx, sy) != (1.0, 1.0):
            for k in ("x", "start_x", "end_x"):
                if k in data:
                    data[k] = int(math.floor(data[k] * sx + 0.5))
            for k in ("y", "start_y", "end_y"):
                if k in data:
                    data[k] = int(math.floor(data[k] * sy + 0.5))
        action = parse_action(data)
        self.result.actions.append(action.to_dict())
        if await self._step(action):
            self.result.ended = True

    # -- finding elements -----------------------------------------------------------------------------
    def locator(self, t: Target, root: Any = None) -> Any:
        return locate(root if root is not None else self.page, t)

    async def probe(self, t: Target, at: str = "center") -> dict[str, Any]:
        """Look at the target on the page, waiting for exactly one visible match."""
        loc = self.locator(t)
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                info = await loc.evaluate_all(_PROBE_JS, at)
            except Exception as e:  # noqa: BLE001 - the page is between documents: look again once it has loaded
                if not _navigating(e) or time.monotonic() > deadline:
                    raise
                await self.page.wait_for_load_state("load", timeout=max(50, (deadline - time.monotonic()) * 1000))
                continue
            if info["n"] == 1:
                if info["box"]["width"] <= 0 or info["box"]["height"] <= 0:
                    raise _Fail(f"{t.describe()} has no size on screen")
                return info
            if info["n"] > 1:
                raise _Fail(f"{info['n']} visible elements match {t.describe()}; make the target precise (within, nth)")
            if time.monotonic() > deadline:
                raise _Fail(f"no visible element matches {t.describe()} after {self.timeout_s:g}s")
            try:  # wait for it to appear (a real condition, not a sleep)
                await loc.first.wait_for(state="visible", timeout=max(50, (deadline - time.monotonic()) * 1000))
            except Exception:  # noqa: BLE001 - timed out: the loop reports it
                pass

    async def shown(self, t: Target, otherwise: Target | None = None) -> bool:
        """Whether ``t`` is on the page (a step's ``if_shown``). With ``otherwise``, wait until one of the
        two shows and say which; alone, look once (the environment settles the page after each action)."""
        loc, alt = self.locator(t), (self.locator(otherwise) if otherwise is not None else None)
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                if await loc.count():
                    return True
                if alt is None or await alt.count():
                    return False
            except Exception as e:  # noqa: BLE001 - the page is between documents: look again once it has loaded
                if not _navigating(e) or time.monotonic() > deadline:
                    raise
                await self.page.wait_for_load_state("load", timeout=max(50, (deadline - time.monotonic()) * 1000))
                continue
            if time.monotonic() > deadline:
                raise _Fail(f"neither {t.describe()} nor {otherwise.describe()} showed after {self.timeout_s:g}s")
            both = loc.first.or_(alt.first)  # wait for either (a real condition, not a sleep)
            try:
                await both.first.wait_for(state="visible", timeout=max(50, (deadline - time.monotonic()) * 1000))
            except Exception:  # noqa: BLE001 - timed out or navigating: the loop looks again
                if time.monotonic() > deadline:
                    raise _Fail(f"neither {t.describe()} nor {otherwise.describe()} showed after {self.timeout_s:g}s") from None

    async def find(self, t: Target) -> dict[str, Any]:
        return await self.probe(t)

    async def point(self, t: Target, *, at: str = "center") -> tuple[int, int, dict[str, Any]]:
        """Scroll the target into view with the wheel (as a person would) and return a point on it
        that a click would really hit, with what the probe saw."""
        for _ in range(MAX_SCROLLS):
            info = await self.probe(t, at)
            x, y = info["point"]
            vw, vh = info["viewport"]
            inside = EDGE <= x < vw - EDGE and EDGE <= y < vh - EDGE
            if inside and not info["covered"]:
                return x, y, info
            if not await self._scroll_towards(t, info, covered=inside):
                if inside:
                    raise _Fail(f"{t.describe()} is covered by {info['covered']} at ({x}, {y})")
                raise _Fail(f"cannot scroll {t.describe()} into view")
        raise _Fail(f"{t.describe()} is still off screen after {MAX_SCROLLS} scrolls")

    async def _scroll_towards(self, t: Target, info: dict[str, Any], covered: bool) -> bool:
        """One wheel scroll over the element's scroll container, towards the element."""
        box, area = info["box"], info["area"]
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        mid_x, mid_y = (area["x0"] + area["x1"]) / 2, (area["y0"] + area["y1"]) / 2
        dy, dx = cy - mid_y, cx - mid_x
        if covered and abs(dy) < 50:
            return False  # covered near the middle of its scroll area: scrolling will not uncover it
        horizontal = (cx < area["x0"] or cx > area["x1"]) and abs(dx) > abs(dy)
        direction, delta = (("right" if dx > 0 else "left"), abs(dx)) if horizontal else (("down" if dy > 0 else "up"), abs(dy))
        if delta < 1:
            return False
        amount = max(1, min(10, round(delta / 100)))
        wheel = {"action": "scroll", "x": int(mid_x), "y": int(mid_y), "direction": direction, "amount": amount}
        # The wheel is handled off the main thread and a busy renderer may show the scroll some frames
        # later: look again every two frames, for a bounded time (only a scroll that fails pays for it).
        # While the container still has room that way the scroll is only late, or the wheel was lost
        # (seen on a loaded machine): it gets the step's whole timeout, turning the wheel again after
        # each settle time that shows nothing, as a person would. With no room left it cannot move and
        # one settle time decides.
        room = (info.get("room") or {}).get(direction, 0)
        deadline = time.monotonic() + (max(self.timeout_s, SCROLL_SETTLE_S) if room >= 1 else SCROLL_SETTLE_S)
        while True:
            await self.send(wheel)
            settle = min(deadline, time.monotonic() + SCROLL_SETTLE_S)
            after = await self.probe(t)
            while after.get("box") == box and time.monotonic() < settle:
                await self.page.evaluate(TWO_FRAMES_JS)
                after = await self.probe(t)
            if after.get("box") != box or time.monotonic() >= deadline:
                return after.get("box") != box

    # -- playing ----------------------------------------------------------------------------------------
    async def play(self, steps: list[_Step]) -> PlayResult:
        for i, step in enumerate(steps):
            if self.result.ended:
                break
            self.current = f"step {i} {step.model_dump(exclude_none=True, exclude_defaults=True)}"
            try:
                if step.if_shown is not None and not await self.shown(step.if_shown, step.else_shown):
                    continue  # the condition's element isn't there: the step is not needed
                await self.run(step)
            except _Fail as e:
                raise OracleError(i, step, str(e), self._url()) from None
            except OracleError:
                raise
            except Exception as e:  # noqa: BLE001 - Playwright errors: name the step
                raise OracleError(i, step, f"{type(e).__name__}: {str(e).splitlines()[0]}", self._url()) from None
        return self.result

    def _url(self) -> str:
        try:
            return self.page.url
        except Exception:  # noqa: BLE001
            return ""

    async def run(self, step: _Step) -> None:
        if isinstance(step, Click):
            x, y, _ = await self.point(step.click)
            name = {1: f"{step.button}_click", 2: "double_click", 3: "triple_click"}[step.count]
            if step.count > 1 and step.button != "left":
                raise _Fail("double and triple clicks use the left button")
            await self.send({"action": name, "x": x, "y": y})
        elif isinstance(step, Fill):
            await self._fill(step)
        elif isinstance(step, Select):
            await self._select(step)
        elif isinstance(step, Lookup):
            await self._lookup(step)
        elif isinstance(step, Drag):
            x0, y0, _ = await self.point(step.drag)
            to = await self.probe(step.to)
            x1, y1 = to["point"]
            vw, vh = to["viewport"]
            if not (0 <= x1 < vw and 0 <= y1 < vh):
                raise _Fail(f"the drop target {step.to.describe()} is off screen")
            await self.send({"action": "left_click_drag", "start_x": x0, "start_y": y0, "end_x": x1, "end_y": y1})
        elif isinstance(step, TypeText):
            await self._type(step.type)
        elif isinstance(step, KeyPress):
            await self.send({"action": "key", "key": step.key, "repeat": step.repeat})
        elif isinstance(step, Goto):
            url = step.goto if step.goto.startswith(("http://", "https://")) else urljoin(self.base_url or self.page.url, step.goto)
            await self.send({"action": "goto", "url": url})
        elif isinstance(step, Back):
            await self.send({"action": "back"})
        elif isinstance(step, ScrollTo):
            await self.point(step.scroll_to)
        elif isinstance(step, WaitFor):
            if step.wait_for is not None:
                await self.find(step.wait_for)
            if step.url is not None:
                await self._wait_url(step.url)
        elif isinstance(step, AnswerStep):
            await self.send({"action": "answer", "text": step.answer})
        elif isinstance(step, Infeasible):
            await self.send({"action": "report_infeasible", "reason": step.report_infeasible})
        elif isinstance(step, RawAction):
            await self.send(dict(step.action))
        elif isinstance(step, ToolStep):
            # Dates and other rendered values travel as JSON text, as a model's tool call would send them.
            await self.send({"action": "tool_call", "name": step.tool, "arguments": json.loads(json.dumps(step.args, default=str))})
        else:  # macros are expanded when the instance is made
            raise _Fail(f"cannot play a {type(step).__name__} step")

    async def _wait_url(self, pattern: str) -> None:
        deadline = time.monotonic() + self.timeout_s
        while pattern not in self.page.url:
            if time.monotonic() > deadline:
                raise _Fail(f"the URL {self.page.url} does not contain {pattern!r} after {self.timeout_s:g}s")
            try:
                await self.page.wait_for_url(lambda u: pattern in u, timeout=max(50, (deadline - time.monotonic()) * 1000))
            except Exception:  # noqa: BLE001
                pass

    async def _type(self, text: str) -> None:
        """Type ``text`` as one action, or a long text in bursts of at most ``TYPE_BURST`` characters
        (cut after a space where one is near), as a person types a paragraph in several goes."""
        for part in type_bursts(text):
            await self.send({"action": "type", "text": part})

    async def _fill(self, step: Fill) -> None:
        info = await self.probe(step.fill)
        if info.get("kind") == "date":
            x, y, _ = await self.point(step.fill, at="start")
            await self.send({"action": "left_click", "x": x, "y": y})
            if step.text:
                d = dt.date.fromisoformat(step.text[:10])
                await self.send({"action": "type", "text": f"{d.month:02d}{d.day:02d}{d.year:04d}"})
            else:
                await self.send({"action": "key", "key": "ctrl+a BackSpace"})
            expected = step.text[:10]
        else:
            x, y, _ = await self.point(step.fill)
            await self.send({"action": "left_click", "x": x, "y": y})
            await self.send({"action": "key", "key": "ctrl+a"})
            if step.text:
                await self._type(step.text)
            else:
                await self.send({"action": "key", "key": "BackSpace"})
            expected = step.text
        if self.result.ended:
            return
        value = (await self.probe(step.fill)).get("value")
        if value != expected:
            raise _Fail(f"the field shows {value!r} after typing, not {expected!r}")

    async def _select(self, step: Select) -> None:
        x, y, info = await self.point(step.select)
        options = info.get("options")
        if options is None:
            raise _Fail(f"{step.select.describe()} is a {info.get('kind')}, not a list to choose from (<select>)")
        if step.option not in options:
            raise _Fail(f"no option {step.option!r} (options: {', '.join(options[:20])})")
        await self.send({"action": "left_click", "x": x, "y": y})
        if info["selected"] != step.option:
            await self.send({"action": "type", "text": step.option})
        await self.send({"action": "key", "key": "Return"})
        if self.result.ended:
            return
        chosen = (await self.probe(step.select)).get("selected")
        if chosen != step.option and chosen in options:
            # The list's type-ahead forgets the letters typed after a pause between keys (a busy machine
            # can make one): step from where it landed to the option with the arrow keys instead.
            delta = options.index(step.option) - options.index(chosen)
            await self.send({"action": "left_click", "x": x, "y": y})
            for start in range(0, abs(delta), MAX_KEY_REPEAT):
                await self.send({"action": "key", "key": "Down" if delta > 0 else "Up", "repeat": min(MAX_KEY_REPEAT, abs(delta) - start)})
            await self.send({"action": "key", "key": "Return"})
            if self.result.ended:
                return
            chosen = (await self.probe(step.select)).get("selected")
        if chosen != step.option:
            raise _Fail(f"the list shows {chosen!r} after choosing, not {step.option!r}")

    async def _lookup(self, step: Lookup) -> None:
        x, y, info = await self.point(step.lookup)
        await self.send({"action": "left_click", "x": x, "y": y})
        await self.send({"action": "type", "text": step.text})
        listbox = info.get("controls")
        name = step.option or step.text
        option = Target(role="option", name=name, exact=False,
                        within=Target(css=f"[id='{listbox}']") if listbox else None)
        try:
            ox, oy, _ = await self.point(option)  # waits for the server's suggestions to show
        except _Fail:
            # Several suggestions contain the name (Quest Savings Bank and Quest Savings Bank Europe):
            # take the one whose own line is exactly the name, as a person reading the list would.
            own = await self.locator(option).evaluate_all(_OWN_TEXT_JS)
            if own.count(name) != 1:
                raise
            option = option.model_copy(update={"nth": own.index(name)})
            ox, oy, _ = await self.point(option)
        await self.send({"action": "left_click", "x": ox, "y": oy})
