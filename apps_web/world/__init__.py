"""World store: one SQLite file per live world, forked from a cached template in milliseconds."""

from .clock import DEFAULT_CLOCK, WorldClock
from .db import connect, engine_for, session_for
from .diff import RowUpdate, TableDiff, WorldDiff, diff_databases
from .meta import WorldMeta, read_meta
from .store import (
    InvalidWorldId,
    UnknownWorld,
    World,
    WorldStore,
    default_home,
    validate_world_id,
)

__all__ = [
    "DEFAULT_CLOCK",
    "InvalidWorldId",
    "RowUpdate",
    "TableDiff",
    "UnknownWorld",
    "World",
    "WorldClock",
    "WorldDiff",
    "WorldMeta",
    "WorldStore",
    "connect",
    "default_home",
    "diff_databases",
    "engine_for",
    "read_meta",
    "session_for",
    "validate_world_id",
]
