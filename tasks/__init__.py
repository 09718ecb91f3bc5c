"""Tasks: templates as YAML files (``tasks/<app>/*.yaml``), instances by seed, the oracle player.

::

    from tasks import default_registry
    reg = default_registry()
    task_id = reg.task_ids()[0]                # qualified: "<app>.<task>"
    inst = reg.instance(task_id, seed=3)       # params drawn from world seed 3
    spec = reg.get(task_id, 3)                 # sandbox.spec.EpisodeSpec (TaskSource)

The file format is documented in ``tasks/README.md``. Names are imported lazily, so that
``import sandbox`` can register the shipped task envs (``tasks.shipped``) without loading them.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "TaskFileError": "errors", "UnknownTask": "errors",
    "Solution": "instance", "TaskInstance": "instance", "instantiate": "instance",
    "LoadedTask": "loader", "load_dir": "loader", "load_task": "loader",
    "Macro": "model", "NearMiss": "model", "Param": "model", "Persona": "model", "SetupOp": "model",
    "Target": "model", "TaskTemplate": "model",
    "InstanceError": "params",
    "OracleError": "player", "Player": "player",
    "TaskLoadError": "registry", "TaskRegistry": "registry", "default_registry": "registry",
    "episode_spec": "registry", "get_task": "registry",
}  # fmt: skip


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tasks' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = sorted(_EXPORTS)
