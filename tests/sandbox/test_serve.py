"""`sandbox serve` keeps its world, and the changes people made in it, until the code builds another
world for its seed."""

from __future__ import annotations

import sqlite3

from apps_web.world import WorldStore
from apps_web.world.digest import DIGEST_KEY
from sandbox.serve import served_world


def _set(world, sql: str, *args) -> None:  # noqa: ANN001
    with sqlite3.connect(world.path) as conn:
        conn.execute(sql, args)


def _title(world) -> str:  # noqa: ANN001
    return world.one("SELECT title FROM identity_user ORDER BY id LIMIT 1")[0]


def test_the_served_world_is_kept_until_the_code_builds_another(tmp_path, store: WorldStore) -> None:  # noqa: ANN001
    served = WorldStore(tmp_path / "home", templates_dir=store.templates_dir)
    world = served_world(served)
    assert world.id == "serve-s0-x1"
    _set(world, "UPDATE identity_user SET title = 'Edited by a person' WHERE id = (SELECT min(id) FROM identity_user)")
    assert _title(served_world(served)) == "Edited by a person"
    # another generator version that builds the same world (a faster function, a comment): kept
    _set(world, "UPDATE sandbox_meta SET value = 'an-older-generator' WHERE key = 'version'")
    assert _title(served_world(served)) == "Edited by a person"
    # a world started from a template that held something else: built again
    _set(world, "UPDATE sandbox_meta SET value = 'another-world' WHERE key = ?", DIGEST_KEY)
    assert _title(served_world(served)) != "Edited by a person"
    # a world from before digests: kept while the generator is the same, built again once it is not
    world = served_world(served)
    _set(world, "UPDATE identity_user SET title = 'Edited by a person' WHERE id = (SELECT min(id) FROM identity_user)")
    _set(world, "DELETE FROM sandbox_meta WHERE key = ?", DIGEST_KEY)
    assert _title(served_world(served)) == "Edited by a person"
    _set(world, "UPDATE sandbox_meta SET value = 'an-older-generator' WHERE key = 'version'")
    assert _title(served_world(served)) != "Edited by a person"
    world = served_world(served)
    _set(world, "UPDATE identity_user SET title = 'Edited by a person' WHERE id = (SELECT min(id) FROM identity_user)")
    assert _title(served_world(served, fresh=True)) != "Edited by a person"
