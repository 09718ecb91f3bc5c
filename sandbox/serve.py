"""`sandbox serve`: the app host for people, with a default world that survives restarts."""

from __future__ import annotations

import os
import secrets
from typing import TYPE_CHECKING

from rich.console import Console

if TYPE_CHECKING:
    from apps_web.world import World, WorldStore


def served_world(store: WorldStore, seed: int = 0, scale: int = 1, fresh: bool = False) -> World:
    """The world `sandbox serve` shows for (seed, scale), with the changes people made in it, unless
    ``fresh`` or the code now builds another world for that seed: a world started from a template
    whose digest differs (another schema or other rows; ``apps_web.world.digest``) is built again.
    A world from before digests is kept while the generator's version is the same."""
    from apps_web.world.digest import DIGEST_KEY

    world_id = f"serve-s{seed}-x{scale}"
    if fresh or not store.exists(world_id):
        return store.create(seed=seed, scale=scale, world_id=world_id, owned=False)
    world = store.get(world_id)
    started_as = world.meta.extra.get(DIGEST_KEY)
    outdated = world.meta.version != store.version if started_as is None else started_as != store.digest(seed, scale)
    return store.create(seed=seed, scale=scale, world_id=world_id, owned=False) if outdated else world


def serve(*, port: int, seed: int = 0, scale: int = 1, fresh: bool = False, host: str = "127.0.0.1") -> None:
    import uvicorn

    from apps_web import registry
    from apps_web.host import create_host
    from apps_web.world import WorldStore
    from sandbox.apphost import freeze_startup_heap

    console = Console()
    store = WorldStore()
    with console.status(f"Preparing world (seed {seed}, scale {scale})..."):
        world = served_world(store, seed, scale, fresh)
    secret = os.environ.get("SANDBOX_SECRET") or secrets.token_hex(32)
    app = create_host(store, secret=secret, default_world=world.id)
    freeze_startup_heap()
    console.print(f"[bold]CUA Sandbox[/bold]: {world.meta.company} (world [cyan]{world.id}[/cyan], seed {seed})")
    console.print(f"  portal   http://localhost:{port}/")
    for spec in registry.discover():
        console.print(f"  {spec.name:<8} http://{spec.name}.localhost:{port}/   {spec.title}")
    console.print("  sign in with any user listed on the sign-in page; the password is [bold]sandbox[/bold]")
    console.print(f"  worlds are kept in {store.root}; Ctrl+C stops the host")
    uvicorn.run(app, host=host, port=port, log_level="warning")
