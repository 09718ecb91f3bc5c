"""`sandbox serve`: the app host for people, with a default world that survives restarts."""

from __future__ import annotations

import os
import secrets

from rich.console import Console


def serve(*, port: int, seed: int = 0, scale: int = 1, fresh: bool = False, host: str = "127.0.0.1") -> None:
    import uvicorn

    from apps_web import registry
    from apps_web.host import create_host
    from apps_web.world import WorldStore

    console = Console()
    store = WorldStore()
    world_id = f"serve-s{seed}-x{scale}"
    with console.status(f"Preparing world (seed {seed}, scale {scale})..."):
        if fresh or not store.exists(world_id):
            store.create(seed=seed, scale=scale, world_id=world_id, owned=False)
        world = store.get(world_id)
        if world.meta.version != store.version:  # generator changed since: rebuild the world
            world = store.create(seed=seed, scale=scale, world_id=world_id, owned=False)
    secret = os.environ.get("SANDBOX_SECRET") or secrets.token_hex(32)
    app = create_host(store, secret=secret, default_world=world.id)
    console.print(f"[bold]CUA Sandbox[/bold]: {world.meta.company} (world [cyan]{world.id}[/cyan], seed {seed})")
    console.print(f"  portal   http://localhost:{port}/")
    for spec in registry.discover():
        console.print(f"  {spec.name:<8} http://{spec.name}.localhost:{port}/   {spec.title}")
    console.print("  sign in with any user listed on the sign-in page; the password is [bold]sandbox[/bold]")
    console.print(f"  worlds are kept in {store.root}; Ctrl+C stops the host")
    uvicorn.run(app, host=host, port=port, log_level="warning")
