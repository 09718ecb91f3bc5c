"""The world store: cached templates keyed by (generator version, seed, scale), forked per episode."""

from __future__ import annotations

import fcntl
import os
import re
import secrets
import shutil
import sqlite3
import time
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import psutil
from sqlmodel import Session

from . import changelog
from . import owner as ownership
from .build import build_template, generator_version
from .clock import WorldClock
from .db import connect, engine_for
from .diff import WorldDiff, diff_databases
from .digest import DIGEST_KEY, world_digest
from .meta import WorldMeta, read_meta

WORLD_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
SUFFIX = ".sqlite"


class InvalidWorldId(ValueError):
    """A world id that can never exist (malformed)."""


class UnknownWorld(LookupError):
    """A well-formed world id with no live world behind it (never created, or dropped)."""


def validate_world_id(world_id: str) -> str:
    if not isinstance(world_id, str) or not WORLD_ID.match(world_id):
        raise InvalidWorldId(
            f"malformed world id {world_id!r}: use 1-64 letters, digits, '-' or '_', starting with a letter or digit"
        )
    return world_id


def default_home() -> Path:
    """Where templates and worlds live: $SANDBOX_HOME, else ~/.cache/cua-sandbox."""
    env = os.environ.get("SANDBOX_HOME")
    return Path(env) if env else Path.home() / ".cache" / "cua-sandbox"


@dataclass(frozen=True)
class World:
    """A live world: one SQLite file holding every app's tables, with its frozen clock."""

    id: str
    path: Path
    meta: WorldMeta

    @property
    def clock(self) -> WorldClock:
        return WorldClock(self.meta.clock)

    @property
    def seed(self) -> int:
        return self.meta.seed

    def connect(self, *, readonly: bool = True) -> sqlite3.Connection:
        return connect(self.path, readonly=readonly)

    def session(self) -> Session:
        """A SQLModel session for writing to the world (task set-up, tests)."""
        return Session(engine_for(self.path))

    def query(self, sql: str, *args: Any) -> list[tuple]:
        """The rows of one read-only query (checks, tests and tools; the apps use their sessions)."""
        with closing(self.connect()) as conn:
            return conn.execute(sql, args).fetchall()

    def one(self, sql: str, *args: Any) -> tuple | None:
        """The first row of a read-only query, or None."""
        rows = self.query(sql, *args)
        return rows[0] if rows else None

    def changelog_seq(self) -> int:
        with closing(self.connect()) as conn:
            return changelog.last_seq(conn)

    def changes_since(self, seq: int = 0) -> tuple[WorldDiff, int]:
        """Changes folded from the change log after ``seq``, and the newest sequence number."""
        conn = self.connect()
        try:
            return changelog.changes_since(conn, seq)
        finally:
            conn.close()


class WorldStore:
    def __init__(self, root: Path | str | None = None, *, templates_dir: Path | str | None = None) -> None:
        self.root = Path(root) if root is not None else default_home()
        # Templates may be shared by many stores (test workers, hosts): they are immutable once built.
        self.templates_dir = Path(templates_dir) if templates_dir is not None else self.root / "templates"
        self.worlds_dir = self.root / "worlds"
        self.templates_dir.mkdir(parents=True, exist_ok=True)
        self.worlds_dir.mkdir(parents=True, exist_ok=True)
        self._version: str | None = None
        self._digests: dict[tuple[int, int], str] = {}

    # -- templates ---------------------------------------------------------------------------------
    @property
    def version(self) -> str:
        if self._version is None:
            self._version = generator_version()
        return self._version

    def template_path(self, seed: int = 0, scale: int = 1) -> Path:
        return self.templates_dir / f"{self.version}-s{seed}-x{scale}{SUFFIX}"

    def template(self, seed: int = 0, scale: int = 1) -> Path:
        """The cached template for (version, seed, scale), built once under a file lock."""
        if not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        if not isinstance(scale, int) or not 1 <= scale <= 100:
            raise ValueError(f"scale must be an integer from 1 to 100, got {scale!r}")
        path = self.template_path(seed, scale)
        if path.exists():
            return path
        with self._lock(path.with_suffix(".lock")):
            if path.exists():  # another process built it while we waited
                return path
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            tmp.unlink(missing_ok=True)
            try:
                build_template(tmp, seed=seed, scale=scale, version=self.version)
                os.replace(tmp, path)
            finally:
                tmp.unlink(missing_ok=True)
        return path

    def digest(self, seed: int = 0, scale: int = 1) -> str:
        """The digest of the world (seed, scale) builds (``digest.world_digest``): what a decision made
        in that world names, so that it stands as long as the world holds the same, whatever code
        built it. Builds the template if needed; a template from before digests is hashed here."""
        key = (seed, scale)
        if key not in self._digests:
            path = self.template(seed, scale)
            self._digests[key] = read_meta(path).extra.get(DIGEST_KEY) or world_digest(path)
        return self._digests[key]

    @contextmanager
    def _lock(self, path: Path) -> Iterator[None]:
        with open(path, "w") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    # -- worlds ------------------------------------------------------------------------------------
    def path(self, world_id: str) -> Path:
        return self.worlds_dir / f"{validate_world_id(world_id)}{SUFFIX}"

    def exists(self, world_id: str) -> bool:
        return self.path(world_id).exists()

    def create(self, seed: int = 0, scale: int = 1, *, world_id: str | None = None, owned: bool = True) -> World:
        """Fork a new world from the template (a file copy: milliseconds).

        ``owned``: the world lives as long as this process (an episode's): its owner is recorded so
        that a world left behind when the process is killed is found by :meth:`orphans`. Worlds kept
        for people (``sandbox serve``, ``sandbox worlds create``) are not owned and stay until
        dropped or cleaned up by age.
        """
        template = self.template(seed, scale)
        world_id = validate_world_id(world_id) if world_id else f"w{seed}-{secrets.token_hex(6)}"
        dest = self.path(world_id)
        if owned:  # before the world exists: a killed process never leaves an unowned episode world
            ownership.write(self.owner_path(world_id), ownership.current())
        else:
            self.owner_path(world_id).unlink(missing_ok=True)
        tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
        shutil.copyfile(template, tmp)
        os.replace(tmp, dest)  # atomic: a reader sees the old world or the whole new one
        return World(id=world_id, path=dest, meta=read_meta(dest))

    def import_world(self, source: Path | str, *, world_id: str | None = None, owned: bool = True) -> World:
        """A new live world copied from a world file (a checkpoint's, a snapshot): the source is never
        changed, so many worlds can start from one file. Its meta (seed, clock) comes with it."""
        source = Path(source)
        meta = read_meta(source)  # refuses a file that is not a world (no meta table)
        world_id = validate_world_id(world_id) if world_id else f"w{meta.seed}-{secrets.token_hex(6)}"
        dest = self.path(world_id)
        if dest.exists():
            raise FileExistsError(f"world {world_id!r} already exists in {self.worlds_dir}")
        if owned:
            ownership.write(self.owner_path(world_id), ownership.current())
        tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
        try:
            shutil.copyfile(source, tmp)
            os.replace(tmp, dest)
        except BaseException:
            tmp.unlink(missing_ok=True)
            self.owner_path(world_id).unlink(missing_ok=True)
            raise
        return World(id=world_id, path=dest, meta=meta)

    def get(self, world_id: str) -> World:
        path = self.path(world_id)
        if not path.exists():
            raise UnknownWorld(f"no world {world_id!r}: it was never created or has been dropped")
        return World(id=world_id, path=path, meta=read_meta(path))

    def list(self) -> list[str]:
        return sorted(p.name[: -len(SUFFIX)] for p in self.worlds_dir.glob(f"*{SUFFIX}") if not p.name.startswith("."))

    def snapshot(self, world: World | str, dest: Path | None = None) -> Path:
        """A consistent copy of a live world (SQLite backup API, safe while the app host writes)."""
        world = self.get(world) if isinstance(world, str) else world
        dest = dest or self.root / "snapshots" / f"{world.id}-{time.time_ns()}{SUFFIX}"
        dest.parent.mkdir(parents=True, exist_ok=True)
        src = connect(world.path, readonly=True)
        dst = sqlite3.connect(dest)
        try:
            src.backup(dst)
        finally:
            src.close()
            dst.close()
        return dest

    @staticmethod
    def diff(before: World | Path, after: World | Path) -> WorldDiff:
        b = before.path if isinstance(before, World) else before
        a = after.path if isinstance(after, World) else after
        return diff_databases(b, a)

    def drop(self, world: World | str) -> None:
        world_id = world.id if isinstance(world, World) else world
        path = self.path(world_id)
        for p in (path, path.with_name(path.name + "-journal"), path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            p.unlink(missing_ok=True)
        self.owner_path(world_id).unlink(missing_ok=True)  # last: the world is never left unowned

    # -- owners and orphans ------------------------------------------------------------------------
    def owner_path(self, world_id: str) -> Path:
        return self.worlds_dir / f"{validate_world_id(world_id)}{ownership.SUFFIX}"

    def owner(self, world_id: str) -> ownership.Owner | None:
        """The process that owns a live world (None: a world kept for people, or made before owners)."""
        return ownership.read(self.owner_path(world_id))

    def release(self, world: World | str) -> None:
        """Keep a world beyond its process: it is no longer owned (so never an orphan)."""
        self.owner_path(world.id if isinstance(world, World) else world).unlink(missing_ok=True)

    def orphans(self) -> list[str]:
        """Worlds whose owning process is gone (killed before it could drop them): nothing uses them.

        Also names owner records left without a world (a process killed while forking)."""
        found = []
        for p in sorted(self.worlds_dir.glob(f"*{ownership.SUFFIX}")):
            world_id = p.name[: -len(ownership.SUFFIX)]
            record = ownership.read(p)
            if record is not None and not record.alive() and WORLD_ID.match(world_id):
                found.append(world_id)
        return found

    def remove_orphans(self) -> list[str]:
        """Drop every orphan world (see :meth:`orphans`) and the unfinished forks of dead processes."""
        removed = self.orphans()
        for world_id in removed:
            self.drop(world_id)
        for tmp in self.worlds_dir.glob(f".*{SUFFIX}.*.tmp"):  # ".<id>.sqlite.<pid>.tmp"
            pid = tmp.name.rsplit(".", 2)[-2]
            if pid.isdigit() and not psutil.pid_exists(int(pid)):
                tmp.unlink(missing_ok=True)
        return removed

    def cleanup(self, max_age_s: float = 24 * 3600) -> int:
        """Drop worlds untouched for ``max_age_s`` seconds and stale templates of old versions."""
        now, removed = time.time(), 0
        for p in list(self.worlds_dir.glob(f"*{SUFFIX}")) + list(self.worlds_dir.glob(".*.tmp")):
            if now - p.stat().st_mtime > max_age_s:
                p.unlink(missing_ok=True)
                p.with_suffix(ownership.SUFFIX).unlink(missing_ok=True)
                removed += 1
        for p in self.templates_dir.glob(f"*{SUFFIX}"):
            if not p.name.startswith(self.version):
                p.unlink(missing_ok=True)
                removed += 1
        snaps = self.root / "snapshots"
        if snaps.exists():
            for p in snaps.glob(f"*{SUFFIX}"):
                if now - p.stat().st_mtime > max_age_s:
                    p.unlink(missing_ok=True)
                    removed += 1
        return removed
