"""Tasks: templates as YAML files (``tasks/<app>/*.yaml``), instances by seed, the oracle player.

::

    from tasks import default_registry
    reg = default_registry()
    inst = reg.instance("opportunity-close-won", seed=3)   # params drawn from world seed 3
    spec = reg.get("crm.opportunity-close-won", 3)         # sandbox.spec.EpisodeSpec (TaskSource)

The file format is documented in ``tasks/README.md``.
"""

from .errors import TaskFileError, UnknownTask
from .instance import Solution, TaskInstance, instantiate
from .loader import LoadedTask, load_dir, load_task
from .model import Macro, NearMiss, Param, Persona, SetupOp, Target, TaskTemplate
from .params import InstanceError
from .player import OracleError, Player
from .registry import TaskLoadError, TaskRegistry, default_registry, episode_spec, get_task

__all__ = [
    "InstanceError",
    "LoadedTask",
    "Macro",
    "NearMiss",
    "OracleError",
    "Param",
    "Persona",
    "Player",
    "SetupOp",
    "Solution",
    "Target",
    "TaskFileError",
    "TaskInstance",
    "TaskLoadError",
    "TaskRegistry",
    "TaskTemplate",
    "UnknownTask",
    "default_registry",
    "episode_spec",
    "get_task",
    "instantiate",
    "load_dir",
    "load_task",
]
