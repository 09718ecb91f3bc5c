"""The driver's pull queue: every actor has ``slots`` places; a place that frees takes the next item.

No item is assigned ahead of time, so a fast node takes more and a dead one takes nothing. When an
actor dies mid-item (killed, out of memory, its node gone) Ray raises on the driver; the item goes
back to the head of the queue for the next free place (another actor, or the same one once Ray has
restarted it) and the failed attempt is reported, not counted. An item that outlives its time limit
by ``grace_s`` means a hung actor: it is killed (Ray restarts it) and its items are retried the same
way. An item that failed ``max_attempts`` times is given up (``on_give_up``).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, Callable

from .options import NodeHandle


@dataclass
class Attempt:
    """A failed attempt at an item (the item is retried unless ``final``)."""

    key: str
    number: int
    actor: str
    error: str
    seconds: float
    final: bool = False


def _await(ref: Any) -> asyncio.Future:
    return asyncio.wrap_future(ref.future())


async def dispatch(
    nodes: list[NodeHandle],
    items: list[Any],
    fn: Callable[..., Any],
    *,
    slots: int,
    key: Callable[[Any], str] = str,
    on_start: Callable[[Any, NodeHandle], None] | None = None,
    on_result: Callable[[Any, Any], None],
    on_attempt: Callable[[Any, Attempt], None] | None = None,
    on_give_up: Callable[[Any, str], None],
    max_attempts: int = 3,
    item_timeout: float | None = None,
    restart_timeout: float = 300.0,
) -> None:
    """Play every item on the actors with ``fn(node, item)``; results go to ``on_result`` as they come.

    ``on_result`` gets what ``fn`` returned, or the exception ``fn`` raised (a bug of the item, not of
    the actor: it is not retried).
    """
    import ray

    # (0 for a retry so it goes first, order, item, attempt number)
    queue: asyncio.PriorityQueue[tuple[int, int, Any, int]] = asyncio.PriorityQueue()
    for order, item in enumerate(items):
        queue.put_nowait((1, order, item, 1))
    left = len(items)
    finished = asyncio.Event()
    if not left:
        return

    def settle() -> None:
        nonlocal left
        left -= 1
        if left == 0:
            finished.set()

    async def place(node: NodeHandle) -> None:
        while True:
            _, order, item, number = await queue.get()
            if on_start:
                on_start(item, node)
            t0 = time.perf_counter()
            ref = node.actor.call.remote(fn, item)
            error = None
            try:
                result = await asyncio.wait_for(_await(ref), item_timeout)
            except asyncio.TimeoutError:
                error = f"no result {item_timeout:g}s after it started: the actor was taken as hung and restarted"
                ray.kill(node.actor, no_restart=False)
            except ray.exceptions.RayActorError as exc:
                error = f"the actor died: {_first_line(exc)}"
            except ray.exceptions.RayTaskError as exc:
                result = exc.cause if isinstance(getattr(exc, "cause", None), BaseException) else exc
            except ray.exceptions.RayError as exc:  # the object was lost with its node
                error = f"{type(exc).__name__}: {_first_line(exc)}"
            if error is None:
                on_result(item, result)
                settle()
                continue
            final = number >= max_attempts
            if on_attempt:
                on_attempt(item, Attempt(key(item), number, node.label, error, round(time.perf_counter() - t0, 2), final))
            if final:
                on_give_up(item, f"{number} attempts failed; the last: {error}")
                settle()
            else:
                queue.put_nowait((0, order, item, number + 1))
            try:  # wait for Ray to restart this actor before taking more work from it
                node.info = await asyncio.wait_for(_await(node.actor.start.remote()), restart_timeout)
            except (asyncio.TimeoutError, ray.exceptions.RayError):
                return  # gone for good (restarts used up, or no room for it): its places close

    places = [asyncio.ensure_future(place(n)) for n in nodes for _ in range(slots)]
    done_wait = asyncio.ensure_future(finished.wait())
    try:
        while not finished.is_set():
            alive = [p for p in places if not p.done()]
            if not alive:
                raise RuntimeError(f"every Ray actor is gone (restarts used up, or no room left for them) with {left} item(s) unplayed")
            await asyncio.wait([done_wait, *alive], return_when=asyncio.FIRST_COMPLETED)
            for p in places:  # a callback that failed (e.g. the run folder is not writable) ends the run
                if p.done() and not p.cancelled() and p.exception() is not None:
                    raise p.exception()
    finally:
        done_wait.cancel()
        for p in places:
            p.cancel()
        await asyncio.gather(*places, return_exceptions=True)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__
