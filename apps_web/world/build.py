"""Builds a world template: schema of every app, identity, each app's generated data, change log."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from sqlmodel import Session, SQLModel

from . import changelog
from .clock import DEFAULT_CLOCK, WorldClock
from .db import engine_for
from .digest import DIGEST_KEY, world_digest
from .meta import META_TABLE, WorldMeta, write_meta
from .seeding import SeedContext, derive_seed

SCHEMA_VERSION = "1"
_WORLD_DIR = Path(__file__).parent
_IDENTITY_DIR = _WORLD_DIR.parent / "identity"


def _data_sources() -> list[Path]:
    """Source files that define a world's data; any change to them invalidates cached templates."""
    from .. import registry

    files = sorted(_WORLD_DIR.glob("*.py")) + sorted(_IDENTITY_DIR.glob("*.py"))
    for spec in registry.discover():
        for name in spec.data_files:
            p = spec.package_dir / name
            if p.is_dir():
                files += sorted(p.rglob("*.py"))
            elif p.exists():
                files.append(p)
    return files


def generator_version() -> str:
    h = hashlib.sha256(SCHEMA_VERSION.encode())
    for path in _data_sources():
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def company_for(seed: int) -> tuple[str, str]:
    from faker import Faker

    fake = Faker("en_US")
    fake.seed_instance(derive_seed(seed, "company"))
    name = fake.company().replace(",", "")
    slug = "".join(ch for ch in name.lower().split(" ")[0] if ch.isalnum()) or "company"
    return name, f"{slug}.example.com"


def create_schema(engine) -> None:  # noqa: ANN001
    """Every registered table, then every index, in a fixed order.

    ``metadata.create_all`` creates a table's indexes in set order, which varies between processes;
    a fixed order keeps templates of one seed byte-identical wherever they are built.
    """
    from sqlalchemy.schema import CreateIndex, CreateTable

    with engine.begin() as conn:
        for table in SQLModel.metadata.sorted_tables:
            conn.execute(CreateTable(table))
        for table in sorted(SQLModel.metadata.tables.values(), key=lambda t: t.name):
            for index in sorted(table.indexes, key=lambda i: i.name or ""):
                conn.execute(CreateIndex(index))


def build_template(path: Path, *, seed: int, scale: int, version: str) -> None:
    """Write a complete world database at ``path`` (which must not exist yet)."""
    from .. import registry
    from ..identity.seed import seed_users

    specs = registry.discover()
    engine = engine_for(path)
    create_schema(engine)
    clock = WorldClock(DEFAULT_CLOCK)
    company, domain = company_for(seed)
    with Session(engine) as session:
        ctx = SeedContext(session=session, seed=seed, scale=scale, clock=clock, company=company, domain=domain)
        seed_users(ctx)
        session.flush()
        for spec in registry.seed_order(specs):
            if spec.seed is not None:
                spec.seed(ctx)
                session.flush()
        for spec in registry.seed_order(specs):
            if spec.seed_last is not None:
                spec.seed_last(ctx)
                session.flush()
        session.commit()
    engine.dispose()
    conn = sqlite3.connect(path)
    try:
        write_meta(conn, WorldMeta(seed=seed, scale=scale, clock=clock.now, version=version, company=company, domain=domain))
        changelog.install(conn)
        conn.commit()
        conn.execute("VACUUM")
        conn.execute(f"INSERT INTO {META_TABLE} (key, value) VALUES (?, ?)", (DIGEST_KEY, world_digest(conn)))
        conn.commit()
    finally:
        conn.close()
