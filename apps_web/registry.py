"""Apps declare themselves with an AppSpec; the host finds them without any host code changing.

An app is a subpackage of ``apps_web`` whose ``__init__`` defines ``APP = AppSpec(...)``, or a
third-party package exposing one through the ``cua_sandbox.apps`` entry-point group.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # pragma: no cover
    from fastapi import APIRouter

    from .world.seeding import SeedContext

# Packages of the host itself, never apps.
CORE_PACKAGES = frozenset({"world", "identity", "portal", "ui"})


@dataclass(frozen=True)
class AppSpec:
    """What the host needs to know about one cloned app."""

    name: str  # host name: served at <name>.localhost
    title: str  # shown in the launcher and the app header
    description: str
    icon: str  # inline SVG markup (no external assets)
    package_dir: Path  # holds templates/ and static/
    router: Callable[[], "APIRouter"]  # factory, so importing an app stays cheap
    seed: Callable[["SeedContext"], None] | None = None  # fills the app's tables in a new world
    seed_after: tuple[str, ...] = ()  # apps whose data this app's generator reads
    # Runs after every app's generator: rows added to an existing world that no other generator reads
    # (so adding them changes no other app's data for an existing seed).
    seed_last: Callable[["SeedContext"], None] | None = None
    color: str = "#0176d3"  # accent colour of the app's header
    order: int = 100  # position in the launcher
    home_path: str = "/"
    default_role: str | None = None  # the role free-form episodes on this app sign in as
    data_files: tuple[str, ...] = ("models.py", "models", "seed.py", "seed", "picklists.py")  # define the world's data
    templates_setup: Callable[[Any], None] | None = None  # adds the app's globals/filters to its Jinja env
    volatile: tuple[str, ...] = ()  # "table" or "table.field" ("*.field" for all tables) verifiers ignore
    # Field metadata the models cannot say: {table: {column: {"label", "picklist", "required", "lookup"}}},
    # read by `sandbox schema` (and any tool that needs the forms' vocabulary).
    fields: Callable[[], dict[str, dict[str, dict[str, Any]]]] | None = None
    # The app's co-worker adapter (apps_web/messaging.py): how people's requests and replies travel
    # through it (mail threads, chat conversations, approval records); None if it carries none.
    messaging: Callable[[], Any] | None = None
    # Called when the browser signs out of this app (its own Sign out, or the sign-out round started
    # by another app) with the request and the redirect about to be sent: the app ends what belongs
    # to the session (the desk closes an impersonation in force) before its session cookie goes.
    on_signout: Callable[[Any, Any], None] | None = None
    extra: dict = field(default_factory=dict)

    @property
    def templates_dir(self) -> Path:
        return self.package_dir / "templates"

    @property
    def static_dir(self) -> Path:
        return self.package_dir / "static"


@lru_cache(maxsize=1)
def discover() -> tuple[AppSpec, ...]:
    """Every installed app, in launcher order. Importing an app also registers its tables."""
    import apps_web

    specs: dict[str, AppSpec] = {}
    for mod in pkgutil.iter_modules(apps_web.__path__):
        if not mod.ispkg or mod.name in CORE_PACKAGES:
            continue
        module = importlib.import_module(f"apps_web.{mod.name}")
        spec = getattr(module, "APP", None)
        if isinstance(spec, AppSpec):
            specs[spec.name] = spec
    for ep in entry_points(group="cua_sandbox.apps"):
        spec = ep.load()
        if isinstance(spec, AppSpec):
            specs.setdefault(spec.name, spec)
    return tuple(sorted(specs.values(), key=lambda s: (s.order, s.name)))


def volatile_columns() -> list[str]:
    """The columns every installed app declares volatile (verifiers ignore their changes)."""
    return [column for spec in discover() for column in spec.volatile]


def get(name: str) -> AppSpec | None:
    return next((s for s in discover() if s.name == name), None)


def seed_order(specs: tuple[AppSpec, ...]) -> list[AppSpec]:
    """Apps ordered so that each generator runs after the apps it reads from."""
    by_name = {s.name: s for s in specs}
    done: list[AppSpec] = []
    seen: set[str] = set()

    def visit(spec: AppSpec, stack: tuple[str, ...] = ()) -> None:
        if spec.name in seen:
            return
        if spec.name in stack:
            raise ValueError(f"app generators depend on each other in a cycle: {' -> '.join(stack + (spec.name,))}")
        for dep in spec.seed_after:
            if dep in by_name:
                visit(by_name[dep], stack + (spec.name,))
        seen.add(spec.name)
        done.append(spec)

    for spec in specs:
        visit(spec)
    return done
