"""A background event loop for the synchronous wrappers, and the runtimes they share.

Playwright objects belong to the event loop that created them, so the sync gymnasium env and the
sync pool run the async core on one private loop in a daemon thread. Sync envs made without their
own runtime share one runtime per set of apps on that loop (one Chromium, one app host), so making
many envs in a process (``gymnasium.make``, vector envs, ``check_env``) costs a context each, not a
browser each. Shared runtimes are closed at interpreter exit, or by :func:`shutdown`.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class BackgroundLoop:
    """An asyncio loop running forever in a daemon thread; ``run(coro)`` blocks until it is done."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._main, name="sandbox-loop", daemon=True)
        self._thread.start()

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        if threading.current_thread() is self._thread:
            raise RuntimeError("a sync sandbox call was made from inside the sandbox loop; use the async API there")
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self.loop.is_closed()


_lock = threading.Lock()
_loop: BackgroundLoop | None = None
_shared: dict[tuple[str, ...], Any] = {}
_shared_lock: asyncio.Lock | None = None


def background_loop() -> BackgroundLoop:
    """The process-wide background loop (started on first use)."""
    global _loop
    with _lock:
        if _loop is None or not _loop.alive:
            _loop = BackgroundLoop()
        return _loop


async def shared_runtime(apps: tuple[str, ...] = ()) -> Any:
    """The runtime shared by sync envs needing ``apps`` (extra apps such as "playground"); on the background loop."""
    from .runtime import Runtime, default_apps

    global _shared_lock
    if _shared_lock is None:
        _shared_lock = asyncio.Lock()
    key = tuple(sorted(set(apps)))
    async with _shared_lock:
        runtime = _shared.get(key)
        if runtime is None or runtime.closed:
            runtime = await Runtime.start(apps=default_apps(*key))
            _shared[key] = runtime
        return runtime


async def _close_shared() -> None:
    runtimes = list(_shared.values())
    _shared.clear()
    for runtime in runtimes:
        try:
            await runtime.close()
        except Exception:
            pass


def shutdown() -> None:
    """Close the shared runtimes (browser and app host); they restart on next use."""
    if _loop is not None and _loop.alive and _shared:
        _loop.run(_close_shared(), timeout=60)


atexit.register(shutdown)

__all__ = ["BackgroundLoop", "background_loop", "shared_runtime", "shutdown"]
