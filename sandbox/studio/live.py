"""The live view: the sandboxed page's screen as a stream of frames (CDP ``Page.startScreencast``;
JPEG by default, PNG when exact pixels matter, e.g. for the latency benchmark).

Chromium sends a frame whenever the page repaints, so hovers, loading and typing show as they
happen, with no polling. Each frame is acknowledged at once (Chromium sends the next only after an
ack) and handed to every subscriber as its *latest* frame: a slow viewer skips frames, it never
queues them up.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

JPEG_QUALITY = 80


class Subscriber:
    """One viewer's mailbox: the newest frame (older unsent ones are dropped) and a queue of messages."""

    def __init__(self) -> None:
        self.frame: bytes | None = None
        self.messages: list[bytes] = []
        self._wake = asyncio.Event()
        self.closed = False

    def put_frame(self, frame: bytes) -> None:
        self.frame = frame
        self._wake.set()

    def put_message(self, data: bytes) -> None:
        self.messages.append(data)
        self._wake.set()

    def close(self) -> None:
        self.closed = True
        self._wake.set()

    async def next(self) -> tuple[list[bytes], bytes | None]:
        """Wait for something to send: (messages, frame or None)."""
        while not (self.messages or self.frame is not None or self.closed):
            self._wake.clear()
            await self._wake.wait()
        messages, self.messages = self.messages, []
        frame, self.frame = self.frame, None
        return messages, frame


class LiveView:
    """Screencast of one page at a time; ``attach`` again when the episode's page changes."""

    def __init__(self, frame_format: str = "jpeg") -> None:
        if frame_format not in ("jpeg", "png"):
            raise ValueError(f"frame_format must be 'jpeg' or 'png', not {frame_format!r}")
        self.format = frame_format
        self.page: Any = None
        self.cdp: Any = None
        self.latest: bytes | None = None
        self.frames = 0
        self.subscribers: set[Subscriber] = set()
        self._waiters: list[asyncio.Future] = []

    async def attach(self, page: Any) -> None:
        """Stream ``page`` (stops streaming the previous one)."""
        if page is self.page and self.cdp is not None:
            return
        await self.detach()
        self.page = page
        self.cdp = await page.context.new_cdp_session(page)
        self.cdp.on("Page.screencastFrame", self._on_frame)
        await self.cdp.send("Page.startScreencast", {**self._format(), "everyNthFrame": 1})
        await self.snapshot()  # a page at rest sends no frame: show it now

    async def snapshot(self) -> bytes | None:
        """Capture and broadcast the current screen (for new viewers and pages that do not repaint)."""
        if self.cdp is None:
            return None
        try:
            result = await self.cdp.send("Page.captureScreenshot", {**self._format(), "optimizeForSpeed": True})
        except Exception:  # the page is closing or navigating: the screencast will send a frame
            return self.latest
        self._publish(base64.b64decode(result["data"]))
        return self.latest

    def _format(self) -> dict[str, Any]:
        return {"format": "jpeg", "quality": JPEG_QUALITY} if self.format == "jpeg" else {"format": "png"}

    def _on_frame(self, event: dict) -> None:
        cdp = self.cdp
        if cdp is not None:
            asyncio.ensure_future(self._ack(cdp, event["sessionId"]))
        self._publish(base64.b64decode(event["data"]))

    @staticmethod
    async def _ack(cdp: Any, session_id: int) -> None:
        try:
            await cdp.send("Page.screencastFrameAck", {"sessionId": session_id})
        except Exception:  # the page went away
            pass

    def _publish(self, frame: bytes) -> None:
        self.latest = frame
        self.frames += 1
        for sub in self.subscribers:
            sub.put_frame(frame)
        waiters, self._waiters = self._waiters, []
        for w in waiters:
            if not w.done():
                w.set_result(frame)

    def next_frame(self) -> asyncio.Future:
        """A future resolved by the next frame (benchmarks and tests)."""
        future = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        return future

    def subscribe(self) -> Subscriber:
        sub = Subscriber()
        self.subscribers.add(sub)
        if self.latest is not None:
            sub.put_frame(self.latest)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        self.subscribers.discard(sub)
        sub.close()

    def broadcast(self, message: bytes) -> None:
        for sub in self.subscribers:
            sub.put_message(message)

    async def detach(self) -> None:
        cdp, self.cdp, self.page = self.cdp, None, None
        if cdp is None:
            return
        try:
            await cdp.send("Page.stopScreencast")
            await cdp.detach()
        except Exception:
            pass

    async def close(self) -> None:
        await self.detach()
        for sub in list(self.subscribers):
            self.unsubscribe(sub)


__all__ = ["JPEG_QUALITY", "LiveView", "Subscriber"]
