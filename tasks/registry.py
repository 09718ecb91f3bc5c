"""The task registry: every task file of ``tasks/<app>/``, instances by (id, seed), and the
environment's :class:`~sandbox.spec.TaskSource` over them.

Ids: a task's own id (``opportunity-close-won``), qualified by its app (``crm.opportunity-close-won``,
the form :class:`EpisodeSpec` uses) or as a gymnasium id (``sandbox/crm.opportunity-close-won``).
"""

from __future__ import annotations

import fnmatch
import hashlib
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from .errors import TaskFileError, UnknownTask
from .instance import TaskInstance, instantiate
from .params import InstanceError
from .loader import LoadedTask, load_dir

if TYPE_CHECKING:  # pragma: no cover
    from apps_web.world import WorldStore
    from sandbox.spec import EpisodeSpec

TASKS_DIR = Path(__file__).resolve().parent
ENV_PREFIX = "sandbox/"


class TaskLoadError(ValueError):
    """Some task files did not load; ``errors`` holds one TaskFileError per file."""

    def __init__(self, errors: list[TaskFileError]) -> None:
        self.errors = errors
        super().__init__(f"{len(errors)} task file(s) did not load:\n" + "\n".join(str(e) for e in errors))


# folder -> (its files' signature, what loading it gave)
_LOADED: dict[str, tuple[tuple[Any, ...], tuple[dict[str, LoadedTask], list[TaskFileError]]]] = {}
_LOADED_LOCK = threading.Lock()


def _folder_signature(root: Path) -> tuple[Any, ...]:
    """Every task and macro file under ``root`` (and the shipped folder's macros) with a hash of its
    bytes: a change to any of them loads the folder again (reading ~300 small files takes milliseconds)."""
    files = [*root.rglob("*.yaml"), *(TASKS_DIR.glob("**/_macros.yaml") if root.resolve() != TASKS_DIR else ())]
    out = []
    for f in sorted(files):
        try:
            out.append((str(f), hashlib.blake2b(f.read_bytes(), digest_size=16).digest()))
        except OSError:
            continue
    return tuple(out)


def _load_dir_cached(root: Path) -> tuple[dict[str, LoadedTask], list[TaskFileError]]:
    """A folder's tasks, loaded once per process while its files are unchanged: registries of the same
    folder (a runner, a viewer, a test) share the checked templates, which nothing mutates."""
    folder, signature = str(root.resolve()), _folder_signature(root)
    with _LOADED_LOCK:
        seen = _LOADED.get(folder)
        if seen is None or seen[0] != signature:
            seen = _LOADED[folder] = (signature, load_dir(root, shipped=TASKS_DIR))
    tasks, errors = seen[1]
    return dict(tasks), list(errors)


class TaskRegistry:
    """Task templates loaded from a folder, and their instances (cached per (id, seed))."""

    def __init__(self, root: Path | str = TASKS_DIR, *, store: WorldStore | None = None, cache_size: int = 512,
                 strict: bool = True) -> None:
        """``root``: a folder of ``<app>/*.yaml`` task files; a folder other than the shipped one also
        sees the shipped macros. ``strict``: a file that does not load makes every use fail (the
        default); otherwise it is left out and listed in :attr:`errors`."""
        self.root = Path(root)
        self.strict = strict
        self._store = store
        self._tasks: dict[str, LoadedTask] | None = None
        self._errors: list[TaskFileError] = []
        self._instances: OrderedDict[tuple[str, int], TaskInstance] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._only: set[str] | None = None  # the ids of a registry of named tasks (for_tasks)

    @classmethod
    def for_tasks(cls, task_ids: Iterable[str], root: Path | str = TASKS_DIR, **kwargs: Any) -> TaskRegistry:
        """A registry of the tasks ``task_ids`` name (any accepted form): only the files named after
        them are read and checked, which a command that plays a few named tasks (a shell agent's
        ``sandbox app start`` and ``verify``, ``sandbox run --tasks ID``) needs instead of checking
        ~300 templates each time. When some id has no file named after it, the whole folder is
        loaded, so an unknown id lists the close ones."""
        registry = cls(root, **kwargs)
        registry._only = {_own_id(t) for t in task_ids}
        return registry

    @classmethod
    def for_task(cls, task_id: str, root: Path | str = TASKS_DIR, **kwargs: Any) -> TaskRegistry:
        return cls.for_tasks([task_id], root, **kwargs)

    # -- loading
    @property
    def store(self) -> WorldStore:
        if self._store is None:
            from apps_web.world import WorldStore

            self._store = WorldStore()
        return self._store

    def load(self, *, strict: bool | None = None) -> dict[str, LoadedTask]:
        with self._lock:
            if self._tasks is None and self._only:
                tasks, errors = load_dir(self.root, shipped=TASKS_DIR, names=self._only)
                found = {t.id for t in tasks.values()} | {e.path.stem for e in errors}
                if found >= self._only:
                    self._tasks, self._errors = tasks, errors
            if self._tasks is None:
                self._tasks, self._errors = _load_dir_cached(self.root)
        if (self.strict if strict is None else strict) and self._errors:
            raise TaskLoadError(self._errors)
        return self._tasks

    @property
    def errors(self) -> list[TaskFileError]:
        self.load(strict=False)
        return list(self._errors)

    # -- ids
    def task_ids(self) -> list[str]:
        """Qualified task ids (``crm.opportunity-close-won``), sorted: ids are unique per app."""
        return sorted(self.load())

    def ids(self) -> list[str]:
        """Qualified ids (``crm.opportunity-close-won``), as :class:`TaskSource` lists them."""
        return self.task_ids()

    def env_ids(self) -> list[str]:
        return [ENV_PREFIX + i for i in self.ids()]

    def resolve_id(self, task_id: str) -> str:
        """The task's own id for any accepted form; UnknownTask (with close ids) otherwise."""
        tasks = self.load()
        name = _without_prefix(task_id)
        if name in tasks:
            return name
        # a task's own id, when one app has it
        owners = [key for key, t in tasks.items() if t.id == name]
        if len(owners) == 1:
            return owners[0]
        if len(owners) > 1:
            raise UnknownTask(task_id, owners)
        raise UnknownTask(task_id, [*tasks, *(t.id for t in tasks.values())])

    def match(self, pattern: str | None) -> list[str]:
        """Task ids matching a glob (``crm.*``, ``*close*``, ``opportunity-*``); all when None.
        Several globs may be given separated by commas."""
        ids = self.task_ids()
        if not pattern:
            return ids
        tasks = self.load()
        out = []
        globs = [g.strip() for g in pattern.split(",") if g.strip()]
        for tid in ids:
            names = (tid, tasks[tid].id, f"{ENV_PREFIX}{tid}")
            if any(fnmatch.fnmatchcase(n, g) for g in globs for n in names):
                out.append(tid)
        return out

    def task(self, task_id: str) -> LoadedTask:
        return self.load()[self.resolve_id(task_id)]

    # -- instances
    def instance(self, task_id: str, seed: int = 0) -> TaskInstance:
        tid = self.resolve_id(task_id)
        key = (tid, int(seed))
        with self._lock:
            hit = self._instances.get(key)
            if hit is not None:
                self._instances.move_to_end(key)
                return hit
        task = self.load()[tid]
        from apps_web import registry as apps

        app = apps.get(task.template.app)
        try:
            inst = instantiate(task, int(seed), self.store.template(int(seed)), volatile=tuple(app.volatile) if app else ())
        except InstanceError as e:
            if str(task.path) in str(e):
                raise
            raise InstanceError(f"{task.path} (seed {seed}): {e}") from None
        with self._lock:
            self._instances[key] = inst
            while len(self._instances) > self._cache_size:
                self._instances.popitem(last=False)
        return inst

    # -- TaskSource
    def get(self, task_id: str, seed: int) -> EpisodeSpec:
        """The episode of one task instance (TaskSource); another seed redraws it (``with_seed``)."""
        return episode_spec(self.instance(task_id, seed), reseed=lambda s, t=task_id: self.get(t, s))

    def summaries(self) -> list[dict[str, Any]]:
        tasks = self.load()
        return [tasks[t].template.summary() for t in self.task_ids()]


def _without_prefix(task_id: str) -> str:
    """``sandbox/crm.x`` (a gymnasium id) -> ``crm.x``; other forms unchanged."""
    return task_id[len(ENV_PREFIX):] if task_id.startswith(ENV_PREFIX) else task_id


def _own_id(task_id: str) -> str:
    """A task's own id (its file's name) from any accepted form of its id."""
    return _without_prefix(task_id).rsplit(".", 1)[-1]


def plain_ids(selectors: str | Iterable[str] | None) -> list[str] | None:
    """The task ids of a selection that only names tasks (``crm.opportunity-close-won,desk.x``); None
    when it selects any other way (globs, ``tag:``, ``!``, or nothing: every task)."""
    if isinstance(selectors, str):
        selectors = [selectors]
    tokens = [t.strip() for s in (selectors or []) for t in s.split(",") if t.strip()]
    if not tokens or any(c in t for t in tokens for c in "*?[]!:"):
        return None
    return tokens


def episode_spec(inst: TaskInstance, *, reseed: Any = None) -> EpisodeSpec:
    from sandbox.spec import EpisodeSpec

    t = inst.template
    return EpisodeSpec(
        id=f"{t.app}.{t.id}",
        app=t.app,
        apps=tuple(t.apps),
        start_url=inst.start_url,
        instruction=inst.instruction,
        persona=inst.persona,
        role=None,
        seed=inst.seed,
        max_steps=t.max_steps,
        setup=inst.setup if t.setup else None,
        verify=inst.verify,
        params=inst.params,
        metadata={"title": t.title, "category": t.category, "difficulty": t.difficulty, "tags": t.tags.model_dump()},
        track_progress=bool(inst.verifier.spec.ordered),
        interfaces=tuple(t.interfaces),
        actors=tuple(inst.actors),
        events=tuple(inst.events),
        clock=inst.clock,
        reseed=reseed,
    )


_DEFAULT: TaskRegistry | None = None


def default_registry() -> TaskRegistry:
    """The registry of the tasks shipped with the package (``tasks/<app>/*.yaml``)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = TaskRegistry()
    return _DEFAULT


def get_task(task_id: str, seed: int = 0) -> TaskInstance:
    return default_registry().instance(task_id, seed)


def iter_ids(pattern: str | None = None) -> Iterable[str]:
    return default_registry().match(pattern)
