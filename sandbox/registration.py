"""Registering the sandbox envs with gymnasium after ``import sandbox``, cheaply: when gymnasium is
imported (at once, if it already is), so that ``import sandbox`` alone, as every command line does,
does not import gymnasium and numpy.

Only names are registered here (entry points are strings): nothing heavy is imported until an env
is made. Free-form envs get ``sandbox/<app>.free`` for every app package of ``apps_web`` and for the
playground; the shipped tasks get ``sandbox/<app>.<task>`` (names from their file names); other task
sources are registered by ``sandbox.gym_env.register_tasks(source)``.
"""

from __future__ import annotations

import pkgutil

ENTRY_POINT = "sandbox.gym_env:SandboxEnv"


def installed_app_names() -> list[str]:
    """App package names under ``apps_web`` (found without importing them), plus ``playground``."""
    import apps_web
    from apps_web.registry import CORE_PACKAGES

    names = [m.name for m in pkgutil.iter_modules(apps_web.__path__) if m.ispkg and m.name not in CORE_PACKAGES]
    return sorted(names) + ["playground"]


def register_when_imported() -> None:
    """Register as soon as gymnasium is imported (now, if it is already): ``import sandbox`` does not
    import gymnasium and numpy itself, which would be most of the command line's start-up."""
    import wrapt

    wrapt.register_post_import_hook(lambda _gym: register(), "gymnasium")


def register() -> None:
    try:
        from gymnasium.envs.registration import register as gym_register
        from gymnasium.envs.registration import registry
    except ImportError:  # pragma: no cover - gymnasium is a dependency, but never break `import sandbox`
        return
    for app in installed_app_names():
        env_id = f"sandbox/{app}.free"
        if env_id not in registry:
            gym_register(env_id, entry_point=ENTRY_POINT, kwargs={"app": app})
    # Shipped tasks by file name only (no task file is read until an env is made).
    try:
        from tasks.shipped import SOURCE, shipped_ids
    except ImportError:  # pragma: no cover - the tasks package is part of the distribution
        return
    for task_id in shipped_ids():
        env_id = f"sandbox/{task_id}"
        if env_id not in registry:
            gym_register(env_id, entry_point=ENTRY_POINT, kwargs={"source": SOURCE, "task_id": task_id})
