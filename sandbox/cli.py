"""The `sandbox` command line. Each module in ``sandbox/commands`` adds its commands via ``register(app)``."""

from __future__ import annotations

import importlib
import pkgutil
import sys

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
    _app_fast_path(sys.argv[1:])
    app()


def _app_fast_path(argv: list[str]) -> None:
    """`sandbox app ...` without typer's parsing (a third of a warm command's time). Only forms typer
    reads the same way: `--json` anywhere is the flag, the rest in order; with `--help`, `-h` or `--`,
    typer parses as usual."""
    if argv[:1] != ["app"] or {"--help", "-h", "--"} & set(argv):
        return
    from .commands.app import execute

    rest = argv[1:]
    raise SystemExit(execute([a for a in rest if a != "--json"], "--json" in rest))


if __name__ == "__main__":
    main()
