"""Host-side world selection: which world a request reads and writes, with cached engines."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from datetime import datetime
from dataclasses import dataclass, replace

from sqlalchemy import Engine

from .world import InvalidWorldId, UnknownWorld, WorldClock, WorldMeta, WorldStore, engine_for, read_meta, validate_world_id
from .world.meta import change_counter

WORLD_HEADER = "x-sandbox-world"
# How an episode may work ("gui", "tools" or both, comma-separated); without "tools", the host
# refuses to show API responses as pages (an agent typing /api/... into the address bar).
INTERFACES_HEADER = "x-sandbox-interfaces"


@dataclass(frozen=True)
class WorldHandle:
    """The world a request runs against: its id, engine and clock.

    ``stale``: the world was written since its clock was read (the environment may have moved it);
    the request's own database session reads the clock again (``apps_web.deps.get_session``), which
    costs one small query on a connection the request opens anyway."""

    id: str
    engine: Engine
    meta: WorldMeta
    inode: tuple[int, int]
    counter: bytes = b""  # the file's change counter when ``meta`` was read
    stale: bool = False

    @property
    def clock(self) -> WorldClock:
        return WorldClock(self.meta.clock)


class WorldResolver:
    """Maps world ids to engines; a world file replaced or dropped is noticed by its inode."""

    def __init__(self, store: WorldStore, capacity: int = 64) -> None:
        # Each cached world keeps a few open connections (engine_for(pooled=True)); a world dropped by
        # the store is only noticed when asked for again, so the cache is kept small: the worlds of
        # the episodes running now, with room to spare.
        self.store = store
        self.capacity = capacity
        self._cache: OrderedDict[str, WorldHandle] = OrderedDict()
        self._lock = threading.Lock()

    def resolve(self, world_id: str) -> WorldHandle:
        validate_world_id(world_id)
        path = self.store.path(world_id)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            self._forget(world_id)
            raise UnknownWorld(f"no world {world_id!r}: it was never created or has been dropped") from None
        inode = (st.st_dev, st.st_ino)
        with self._lock:
            handle = self._cache.get(world_id)
            if handle is not None and handle.inode == inode:
                self._cache.move_to_end(world_id)
        if handle is not None and handle.inode == inode:
            counter = change_counter(path)
            if counter == handle.counter:
                return handle
            # The world was written since: the environment may have moved its clock.
            return replace(handle, counter=counter, stale=True)
        counter = change_counter(path)
        handle = WorldHandle(id=world_id, engine=engine_for(path, pooled=True), meta=read_meta(path), inode=inode, counter=counter)
        with self._lock:
            old = self._cache.pop(world_id, None)
            self._cache[world_id] = handle
            while len(self._cache) > self.capacity:
                _, evicted = self._cache.popitem(last=False)
                evicted.engine.dispose()
        if old is not None:
            old.engine.dispose()
        return handle

    def refreshed(self, handle: WorldHandle, clock: datetime) -> WorldHandle:
        """``handle`` with the clock its request read; cached unless the world changed again since."""
        fresh = replace(handle, meta=replace(handle.meta, clock=clock), stale=False)
        with self._lock:
            cached = self._cache.get(handle.id)
            if cached is not None and cached.inode == handle.inode and cached.engine is handle.engine:
                self._cache[handle.id] = fresh
        return fresh

    def _forget(self, world_id: str) -> None:
        with self._lock:
            handle = self._cache.pop(world_id, None)
        if handle is not None:
            handle.engine.dispose()


__all__ = ["WORLD_HEADER", "InvalidWorldId", "UnknownWorld", "WorldHandle", "WorldResolver"]
