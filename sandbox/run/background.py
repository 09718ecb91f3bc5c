"""A runtime that lives in its own event-loop thread, so synchronous code (scripts, notebooks,
tests, benchmarks) can run many runs and replays over one Chromium and one app host."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Coroutine, TypeVar

T = TypeVar("T")


class BackgroundRuntime:
    """``with BackgroundRuntime(store=...) as env: env.run(config)``."""

    def __init__(self, **runtime_options: Any) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="sandbox-runtime", daemon=True)
        self.thread.start()
        from sandbox.runtime import Runtime

        try:
            self.runtime = self.call(Runtime.start(**runtime_options))
        except BaseException:
            self._stop_loop()
            raise

    def call(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run a coroutine on the runtime's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def run(self, config: Any, **kwargs: Any) -> Any:
        from .runner import run_async

        return self.call(run_async(config, runtime=self.runtime, **kwargs))

    def replay(self, episode_dir: Any, **kwargs: Any) -> Any:
        from sandbox.replay import replay_async

        return self.call(replay_async(episode_dir, runtime=self.runtime, **kwargs))

    def _stop_loop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()

    def close(self) -> None:
        if self.loop.is_closed():
            return
        try:
            self.call(self.runtime.close(), timeout=30)
        finally:
            self._stop_loop()

    def __enter__(self) -> BackgroundRuntime:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
