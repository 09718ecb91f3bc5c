"""The `sandbox` command line. Each module in ``sandbox/commands`` adds its commands via ``register(app)``."""

from __future__ import annotations

import importlib
import pkgutil

import typer

app = typer.Typer(
    name="sandbox",
    help="CUA Sandbox: fast, isolated RL environments for computer-use agents on cloned enterprise apps.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    rich_markup_mode="rich",
)


def _load_commands() -> None:
    from . import commands

    for mod in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{mod.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(app)


_load_commands()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
