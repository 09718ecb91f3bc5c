"""World store: cached templates, millisecond forks, isolation between worlds, drop and clean-up."""

from __future__ import annotations

import os
import time

import pytest

from apps_web.world import InvalidWorldId, UnknownWorld, WorldStore


def test_create_forks_a_template_and_reuses_the_cache(store: WorldStore) -> None:
    a = store.create(seed=0)
    template = store.template_path(0, 1)
    built_at = template.stat().st_mtime_ns
    b = store.create(seed=0)
    assert template.stat().st_mtime_ns == built_at  # not rebuilt
    assert a.id != b.id and a.path != b.path
    assert a.meta.seed == 0 and a.meta.version == store.version
    assert store.diff(a, b).is_empty


def test_worlds_are_isolated(store: WorldStore) -> None:
    a, b = store.create(seed=0), store.create(seed=0)
    with a.connect(readonly=False) as conn:
        conn.execute("UPDATE identity_user SET title = 'Changed in A' WHERE id = 1")
    with b.connect() as conn:
        assert conn.execute("SELECT title FROM identity_user WHERE id = 1").fetchone()[0] != "Changed in A"
    diff = store.diff(b, a)
    assert diff.summary() == ["identity_user #1: title changed"]
    assert a.changes_since(0)[0].summary() == diff.summary()


def test_seeds_give_different_companies(store: WorldStore) -> None:
    a, b = store.create(seed=0), store.create(seed=1)
    assert a.meta.company != b.meta.company
    with a.connect() as ca, b.connect() as cb:
        assert ca.execute("SELECT username FROM identity_user ORDER BY id").fetchall() != cb.execute("SELECT username FROM identity_user ORDER BY id").fetchall()


def test_snapshot_drop_and_unknown(store: WorldStore) -> None:
    w = store.create(seed=0)
    snap = store.snapshot(w)
    assert store.diff(snap, w).is_empty
    store.drop(w)
    with pytest.raises(UnknownWorld, match="never created or has been dropped"):
        store.get(w.id)
    assert w.id not in store.list()


@pytest.mark.parametrize("bad", ["", "../etc", "a b", "x" * 65, "-lead", "w/1"])
def test_malformed_world_ids(store: WorldStore, bad: str) -> None:
    with pytest.raises(InvalidWorldId, match="malformed world id"):
        store.path(bad)


def test_bad_seed_and_scale(store: WorldStore) -> None:
    with pytest.raises(ValueError, match="seed"):
        store.create(seed=-1)
    with pytest.raises(ValueError, match="scale"):
        store.create(seed=0, scale=0)


def test_cleanup_removes_stale_worlds_only(store: WorldStore) -> None:
    old, fresh = store.create(seed=0), store.create(seed=0)
    past = time.time() - 3 * 24 * 3600
    os.utime(old.path, (past, past))
    store.cleanup(max_age_s=24 * 3600)
    assert not store.exists(old.id) and store.exists(fresh.id)
    assert store.template_path(0, 1).exists()


def test_world_clock_is_frozen(store: WorldStore) -> None:
    w = store.create(seed=0)
    assert w.clock.now == store.get(w.id).clock.now
    assert w.clock.today.isoformat() == "2026-03-16"


def test_same_seed_same_bytes_across_processes(tmp_path, store: WorldStore) -> None:  # noqa: ANN001
    """The whole world (every app) is the same file when built again by another process with another
    hash seed than the session's template: index creation order, set iteration and the like must not
    leak into it."""
    import os
    import subprocess
    import sys

    code = "import sys; from apps_web.world import WorldStore; print(WorldStore(sys.argv[1]).template(seed=0))"
    hashseed = "2" if os.environ.get("PYTHONHASHSEED") != "2" else "3"
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "p")], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONHASHSEED": hashseed})
    assert open(out.stdout.strip(), "rb").read() == store.template(seed=0).read_bytes()


def test_a_worlds_digest_names_what_it_holds_not_the_code_that_built_it(tmp_path, store: WorldStore) -> None:  # noqa: ANN001
    """A template stores its digest; the digest follows every row and the schema, but not the
    generator's version stamp (another version that builds the same rows builds the same world)."""
    import shutil
    import sqlite3

    from apps_web.world import read_meta
    from apps_web.world.digest import DIGEST_KEY, world_digest

    template = store.template(seed=0)
    digest = store.digest(0)
    assert read_meta(template).extra[DIGEST_KEY] == digest == world_digest(template)
    assert store.digest(1) != digest  # another seed, another company
    copy = tmp_path / "w.sqlite"

    def changed(sql: str, *args: object) -> str:
        shutil.copy(template, copy)
        with sqlite3.connect(copy) as conn:
            conn.execute(sql, args)
        return world_digest(copy)

    assert changed("UPDATE sandbox_meta SET value = 'another-version' WHERE key = 'version'") == digest
    assert changed("UPDATE sandbox_meta SET value = 'x' WHERE key = ?", DIGEST_KEY) == digest
    assert changed("UPDATE sandbox_meta SET value = '2026-03-17T09:30:00' WHERE key = 'clock'") != digest
    assert changed("UPDATE identity_user SET title = title || '.' WHERE id = (SELECT min(id) FROM identity_user)") != digest
    assert changed("CREATE INDEX ix_extra ON identity_user (title)") != digest
    # a world forked from the template starts as it: it carries the template's digest
    assert read_meta(store.create(seed=0).path).extra[DIGEST_KEY] == digest


def test_a_live_owner_stays_alive_when_the_clock_is_set() -> None:
    """A process's wall-clock start moves when the machine's clock is stepped (a VM's is): the owner
    is told by its start since boot, so a live episode's world is never taken for an orphan."""
    from dataclasses import replace

    from apps_web.world import owner

    me = owner.current()
    assert me.since_boot is not None and me.alive()
    assert replace(me, started=me.started + 100).alive()  # the clock was set 100 s forward since
    assert not replace(me, since_boot=me.since_boot + 5).alive()  # another process with the same pid
    assert not replace(me, since_boot=None, started=me.started + 100).alive()  # an old record: wall clock only


HOLD_A_WORLD = """
import sys
from apps_web.world import WorldStore
store = WorldStore(sys.argv[1], templates_dir=sys.argv[2])
print(store.create(seed=0).id, flush=True)
sys.stdin.read()  # hold the world until killed
"""


def test_worlds_of_a_killed_process_are_orphans(tmp_path, store: WorldStore) -> None:  # noqa: ANN001
    """A process holding a world is killed with SIGKILL (no clean-up runs): its world is reported as an
    orphan and removed; worlds of live processes and worlds kept for people are left alone."""
    import signal
    import subprocess
    import sys

    from tests.conftest import ROOT

    home = WorldStore(tmp_path / "home", templates_dir=store.templates_dir)
    mine = home.create(seed=0)  # owned by this (live) process
    kept = home.create(seed=0, world_id="kept-for-people", owned=False)
    proc = subprocess.Popen([sys.executable, "-c", HOLD_A_WORLD, str(home.root), str(home.templates_dir)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        held = proc.stdout.readline().strip()  # the world exists once its id is printed
        assert home.exists(held) and home.owner(held).pid == proc.pid
        assert home.orphans() == []  # its owner still runs
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert home.exists(held) and home.orphans() == [held]
    cli = [sys.executable, "-m", "sandbox.cli", "worlds"]
    env = {**os.environ, "SANDBOX_HOME": str(home.root)}
    listed = subprocess.run([*cli, "orphans"], cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    assert held in listed and f"pid {proc.pid} is gone" in listed and mine.id not in listed and "kept" not in listed
    table = subprocess.run([*cli, "list"], cwd=ROOT, env={**env, "COLUMNS": "200"}, capture_output=True, text=True, check=True).stdout
    assert "orphan" in table and "running" in table and "kept (no owner)" in table and "sandbox worlds orphans --clean" in table
    cleaned = subprocess.run([*cli, "orphans", "--clean"], cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    assert "removed 1 orphan world(s)" in cleaned
    assert not home.exists(held) and not home.owner_path(held).exists() and home.orphans() == []
    assert home.exists(mine.id) and home.exists(kept.id)
    home.drop(mine)
    assert not home.owner_path(mine.id).exists()  # dropping a world drops its owner record
