"""Observations: what the agent sees after each step, paying only for what it asked for.

- screenshot: CDP ``Page.captureScreenshot`` on the page's own session (no Playwright screenshot
  preparation), as PNG bytes or an HxWx3 uint8 array, optionally resized for agents that want another
  size (their coordinates are mapped back with :func:`sandbox.actions.scale_action`);
- url, title, instruction and the last action's error;
- on request, the accessibility tree as text and the set-of-marks list of interactive elements
  (id, role, name, bbox). Both come from one Playwright ARIA snapshot in ``ai`` mode, whose
  ``[ref=eN]`` ids are kept by Playwright on the page's elements and resolve with the ``aria-ref=``
  selector: they are the element ids of ``click_element``, ``fill_element``, ``select_option``...
  Ids are refreshed by every observation that asks for them and stay valid until the page changes
  document.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

ScreenshotMode = Literal["array", "png", "none"]

# Roles an agent can act on; plus anything Playwright marks with cursor=pointer.
INTERACTIVE_ROLES = frozenset({
    "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "option",
    "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton",
    "treeitem", "gridcell",
})  # fmt: skip
_STRUCTURAL = frozenset({"generic", "text", "paragraph", "list", "listitem", "group", "none", "presentation"})


@dataclass(frozen=True)
class ObserveOptions:
    """What each observation contains.

    ``screenshot``: "array" (HxWx3 uint8), "png" (bytes) or "none". ``size``: (width, height) of the
    screenshot the agent sees, if different from the viewport. ``axtree``: the accessibility tree as
    text (``obs["axtree"]``). ``marks``: the set-of-marks element list (``info["elements"]``).
    ``tools``: the last tool call's result as text (``obs["tool_result"]``, empty after other actions;
    ``info["tool_result"]`` has it whatever this says).
    """

    screenshot: ScreenshotMode = "array"
    size: tuple[int, int] | None = None
    axtree: bool = False
    marks: bool = False
    tools: bool = False
    fast_png: bool = True  # CDP optimizeForSpeed: cheaper PNG encoding, slightly larger files

    def __post_init__(self) -> None:
        if self.screenshot not in ("array", "png", "none"):
            raise ValueError(f"screenshot must be 'array', 'png' or 'none', got {self.screenshot!r}")
        if self.size is not None:
            w, h = self.size
            if not (isinstance(w, int) and isinstance(h, int) and w > 0 and h > 0):
                raise ValueError(f"size must be (width, height) in pixels, got {self.size!r}")

    @property
    def wants_elements(self) -> bool:
        return self.axtree or self.marks


@dataclass(frozen=True)
class Element:
    """One interactive element of the set-of-marks list; bbox is (x, y, width, height) in screenshot pixels."""

    id: str
    role: str
    name: str
    bbox: tuple[int, int, int, int]

    @property
    def center(self) -> tuple[int, int]:
        x, y, w, h = self.bbox
        return x + w // 2, y + h // 2

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "role": self.role, "name": self.name, "bbox": list(self.bbox)}


# -- screenshots ------------------------------------------------------------------------------------
CAPTURE_TIMEOUT_S = 5.0


async def capture_png(
    cdp: Any, *, clip: tuple[float, float, float, float] | None = None, fast: bool = True, timeout: float = CAPTURE_TIMEOUT_S,
) -> bytes:
    """A PNG of the viewport (or of ``clip`` = (x, y, width, height) in CSS pixels) via CDP.

    Chromium renders a new frame for the capture, so the image always shows the current DOM. A
    capture asked for while the document is being replaced can wait for a frame that never comes:
    it is bounded by ``timeout`` and asked once more.
    """
    params: dict[str, Any] = {"format": "png"}
    if fast:
        params["optimizeForSpeed"] = True
    if clip is not None:
        x, y, w, h = clip
        params["clip"] = {"x": x, "y": y, "width": w, "height": h, "scale": 1}
    for attempt in range(3):
        try:
            result = await asyncio.wait_for(cdp.send("Page.captureScreenshot", params), timeout)
            return base64.b64decode(result["data"])
        except Exception as exc:
            retry = isinstance(exc, asyncio.TimeoutError) or "Unable to capture screenshot" in str(exc)
            if attempt == 2 or not retry:
                raise
        # No frame to copy yet (a page that has not painted, a document being swapped): wait for the
        # page to produce one, then ask again.
        try:
            await asyncio.wait_for(cdp.send("Runtime.evaluate", {"expression": _NEXT_FRAME, "awaitPromise": True}), timeout)
        except Exception:
            pass
    raise AssertionError("unreachable")  # pragma: no cover - the last attempt returns or raises


_NEXT_FRAME = "new Promise(r => requestAnimationFrame(() => r(true)))"
# Two frames: the first applies the compositor's pending scroll to the page, the second starts after it.
TWO_FRAMES_JS = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"


async def next_frame(cdp: Any, timeout: float = CAPTURE_TIMEOUT_S) -> None:
    """Wait until the page has produced its next frames, without capturing them. A page being replaced
    (or gone) has nothing to wait for: any error ends the wait."""
    try:
        await asyncio.wait_for(cdp.send("Runtime.evaluate", {"expression": TWO_FRAMES_JS, "awaitPromise": True}), timeout)
    except Exception:
        pass


def png_to_array(png: bytes) -> np.ndarray:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as img:
        return np.asarray(img.convert("RGB"))


def resize_png(png: bytes, size: tuple[int, int]) -> bytes:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as img:
        if img.size == size:
            return png
        out = io.BytesIO()
        img.convert("RGB").resize(size, Image.Resampling.BILINEAR).save(out, format="PNG", compress_level=1)
        return out.getvalue()


def resize_array(array: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    from PIL import Image

    if (array.shape[1], array.shape[0]) == size:
        return array
    return np.asarray(Image.fromarray(array).resize(size, Image.Resampling.BILINEAR))


def encode_screenshot(png: bytes, mode: ScreenshotMode, size: tuple[int, int] | None) -> Any:
    """The PNG from CDP in the form the agent asked for."""
    if mode == "none":
        return None
    if mode == "png":
        return resize_png(png, size) if size else png
    array = png_to_array(png)
    return resize_array(array, size) if size else array


def blank_screenshot(mode: ScreenshotMode, size: tuple[int, int]) -> Any:
    w, h = size
    if mode == "array":
        return np.zeros((h, w, 3), dtype=np.uint8)
    if mode == "png":
        from PIL import Image

        out = io.BytesIO()
        Image.new("RGB", (w, h)).save(out, format="PNG")
        return out.getvalue()
    return None


# -- accessibility tree and set-of-marks ----------------------------------------------------------------
_ATTR = re.compile(r"\s*\[([a-z-]+)(?:=([^\]]*))?\]")
_BOX = re.compile(r" \[box=[^\]]*\]")


def _unquote_yaml_key(text: str) -> tuple[str, str]:
    """A single-quoted YAML scalar at the start of ``text`` -> (value, rest)."""
    out, i = [], 1
    while i < len(text):
        ch = text[i]
        if ch == "'":
            if text[i + 1 : i + 2] == "'":
                out.append("'")
                i += 2
                continue
            return "".join(out), text[i + 1 :]
        out.append(ch)
        i += 1
    return "".join(out), ""


def _parse_line(line: str) -> tuple[str, str, dict[str, str]] | None:
    """``- button "Save" [ref=e2] [box=1,2,3,4]: text`` -> (role, name, attributes)."""
    body = line.lstrip()
    if not body.startswith("- "):
        return None
    body = body[2:]
    if body.startswith("'"):
        body, _ = _unquote_yaml_key(body)
    m = re.match(r"([A-Za-z/][\w/-]*)", body)
    if not m:
        return None
    role, rest = m.group(1), body[m.end():]
    name = ""
    if rest.startswith(' "'):
        # A JSON-style double-quoted name: find its closing quote, honouring escapes.
        i, buf = 2, []
        while i < len(rest):
            if rest[i] == "\\" and i + 1 < len(rest):
                buf.append(rest[i : i + 2])
                i += 2
                continue
            if rest[i] == '"':
                break
            buf.append(rest[i])
            i += 1
        try:
            name = json.loads('"' + "".join(buf) + '"')
        except json.JSONDecodeError:
            name = "".join(buf)
        rest = rest[i + 1 :]
    attrs: dict[str, str] = {}
    while True:
        am = _ATTR.match(rest)
        if not am:
            break
        attrs[am.group(1)] = am.group(2) if am.group(2) is not None else ""
        rest = rest[am.end():]
    if not name and rest.startswith(": ") and role not in _STRUCTURAL:
        name = rest[2:].strip().strip('"')
    return role, name, attrs


def parse_snapshot(snapshot: str, viewport: tuple[int, int], scale: tuple[float, float] = (1.0, 1.0)) -> tuple[str, list[Element]]:
    """An ``ai``-mode ARIA snapshot with boxes -> (tree text without boxes, interactive elements in view)."""
    vw, vh = viewport
    sx, sy = scale
    elements: list[Element] = []
    for line in snapshot.splitlines():
        parsed = _parse_line(line)
        if parsed is None:
            continue
        role, name, attrs = parsed
        ref, box = attrs.get("ref"), attrs.get("box")
        if not ref or not box:
            continue
        if role not in INTERACTIVE_ROLES and attrs.get("cursor") != "pointer":
            continue
        try:
            x, y, w, h = (float(v) for v in box.split(","))
        except ValueError:
            continue
        if w <= 0 or h <= 0 or x + w <= 0 or y + h <= 0 or x >= vw or y >= vh:
            continue  # invisible or scrolled out of view: not markable on the screenshot
        x0, y0 = max(x, 0), max(y, 0)
        x1, y1 = min(x + w, vw), min(y + h, vh)
        bbox = (round(x0 / sx), round(y0 / sy), max(1, round((x1 - x0) / sx)), max(1, round((y1 - y0) / sy)))
        elements.append(Element(id=ref, role=role, name=name, bbox=bbox))
    text = _BOX.sub("", snapshot)
    return text, elements


async def aria_snapshot(page: Any, timeout_ms: float = 10_000) -> str:
    return await page.aria_snapshot(mode="ai", boxes=True, timeout=timeout_ms)


def describe_elements(elements: list[Element]) -> str:
    """The set-of-marks list as prompt text: ``[e2] button "Save" at (604, 380, 53, 26)``."""
    return "\n".join(f"[{e.id}] {e.role} {json.dumps(e.name, ensure_ascii=False)} at {tuple(e.bbox)}" for e in elements)


__all__ = [
    "Element", "INTERACTIVE_ROLES", "ObserveOptions", "ScreenshotMode", "aria_snapshot", "blank_screenshot",
    "capture_png", "describe_elements", "encode_screenshot", "parse_snapshot", "png_to_array",
    "resize_array", "resize_png",
]  # fmt: skip
