"""CLI command modules: each defines ``register(app: typer.Typer)``; imports inside commands stay lazy."""
