"""The contract between tasks and the environment: what one episode needs, and where specs come from.

A task library (issue 5) implements :class:`TaskSource`; the environment only ever sees
:class:`EpisodeSpec` objects. Until tasks exist, :func:`free_spec` describes a free-form episode
(an app, a start page and an instruction, no verifier).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import closing
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover
    from apps_web.world import World
    from verifiers import Verdict, VerifyContext

DEFAULT_MAX_STEPS = 100
# The role free-form episodes sign in as: the start app's own default (AppSpec.default_role).
DEFAULT_ROLE = "@app"
INTERFACES = ("gui", "tools")  # how an agent may work: the apps' screens, their tools


@dataclass(frozen=True)
class EpisodeSpec:
    """One episode to run: where it starts, who is signed in, what to do, how to grade it.

    - ``id``: the task id, ``"<app>.<task>"``; ``"<app>.free"`` for free-form envs.
    - ``app``: the name of the app the episode starts in (an installed app, see ``apps_web.registry``);
      every app of the host is reachable.
    - ``apps``: the other apps the task may use besides ``app`` (informative: what the agent will need).
    - ``start_url``: a path on the app's host (``"/opportunities/12"``), or an absolute URL on the host.
    - ``instruction``: the text the agent receives.
    - ``persona``: username of the signed-in user; if ``None``, the first user (lowest id) whose role
      is ``role`` (``DEFAULT_ROLE``: the start app's default role); if both are ``None``, nobody is
      signed in.
    - ``seed``: the world seed (the env's ``reset(seed=...)`` overrides it); ``scale``: the world size.
    - ``max_steps``: the episode is truncated after this many steps.
    - ``setup(world)``: changes applied to the freshly forked world before the browser opens.
    - ``verify(ctx)``: grades the episode at its end (``verifiers.VerifyContext`` -> ``verifiers.Verdict``);
      ``None`` for free-form episodes (reward 0).
    - ``params``: the task parameters drawn for this seed (passed to the verifier as ``ctx.params``).
    - ``track_progress``: grade the episode after every step that changed the world, so the verifier
      knows when each check was first reached (``VerifyContext.reached``: ordered milestones).
    - ``metadata``: free-form data for tools (difficulty, tags...); the env does not read it.
    - ``actors``, ``events``, ``clock``: the world's people who answer the persona, the task's
      scheduled events and the clock's per-step quantum (``sandbox.coworkers``; plain data, or
      callables for world updates); with neither actors nor events the clock stays frozen.
    - ``reseed(seed)``: the spec of the same task for another seed, when the seed draws more than the
      world (a task's parameters, instruction and verifier); ``with_seed`` uses it.
    """

    id: str
    app: str
    apps: tuple[str, ...] = ()
    start_url: str = "/"
    instruction: str = ""
    persona: str | None = None
    role: str | None = DEFAULT_ROLE
    seed: int = 0
    scale: int = 1
    max_steps: int = DEFAULT_MAX_STEPS
    setup: Callable[[World], None] | None = None
    verify: Callable[[VerifyContext], Verdict] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    track_progress: bool = False  # grade after every world-changing step (ordered milestones need it)
    interfaces: tuple[str, ...] = ("gui",)  # "gui" (screens, mouse, keyboard), "tools" (the apps' tools), or both
    actors: tuple[Any, ...] = ()  # co-worker profiles (sandbox.coworkers.Actor or its plain data)
    events: tuple[Any, ...] = ()  # scheduled events: {at | after_step, message | update}
    clock: dict[str, Any] | None = field(default=None, compare=False)  # {per_step: "1m"}
    reseed: Callable[[int], EpisodeSpec] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.id or not isinstance(self.id, str):
            raise ValueError("EpisodeSpec.id must be a non-empty string '<app>.<task>'")
        if not self.app or not isinstance(self.app, str):
            raise ValueError(f"EpisodeSpec.app must name an installed app, such as {default_app()!r}")
        if not isinstance(self.max_steps, int) or self.max_steps < 1:
            raise ValueError(f"EpisodeSpec.max_steps must be a positive integer, got {self.max_steps!r}")
        if not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"EpisodeSpec.seed must be a non-negative integer, got {self.seed!r}")
        interfaces = tuple(self.interfaces) if not isinstance(self.interfaces, str) else (self.interfaces,)
        if not interfaces or set(interfaces) - set(INTERFACES):
            raise ValueError(f"EpisodeSpec.interfaces must be some of {', '.join(INTERFACES)}, got {self.interfaces!r}")
        object.__setattr__(self, "interfaces", interfaces)
        apps = (self.apps,) if isinstance(self.apps, str) else tuple(self.apps)
        if not all(isinstance(a, str) and a for a in apps):
            raise ValueError(f"EpisodeSpec.apps must be app names (strings), got {self.apps!r}")
        object.__setattr__(self, "apps", apps)

    @property
    def allows_tools(self) -> bool:
        return "tools" in self.interfaces

    @property
    def allows_gui(self) -> bool:
        return "gui" in self.interfaces

    def with_seed(self, seed: int | None) -> EpisodeSpec:
        if seed is None or seed == self.seed:
            return self
        return self.reseed(seed) if self.reseed is not None else replace(self, seed=seed)

    def replace(self, **changes: Any) -> EpisodeSpec:
        return replace(self, **changes)


@runtime_checkable
class TaskSource(Protocol):
    """Where episode specs come from: a task library, a file of tasks, a generator.

    ``get(task_id, seed)`` returns the episode of one task instance (the seed draws the task's
    parameters and the world); ``ids()`` lists the task ids it knows (``"<app>.<task>"``).
    """

    def get(self, task_id: str, seed: int) -> EpisodeSpec: ...

    def ids(self) -> Iterable[str]: ...


def default_app() -> str:
    """The first installed app (in launcher order): where free-form episodes start by default."""
    from apps_web import registry

    apps = registry.discover()
    if not apps:
        raise RuntimeError("no app is installed (apps_web/<name>/ with an APP = AppSpec(...))")
    return apps[0].name


def free_spec(
    app: str | None = None,
    start_url: str = "/",
    instruction: str = "",
    *,
    persona: str | None = None,
    role: str | None = DEFAULT_ROLE,
    seed: int = 0,
    max_steps: int = DEFAULT_MAX_STEPS,
    setup: Callable[[World], None] | None = None,
    interfaces: tuple[str, ...] = INTERFACES,
) -> EpisodeSpec:
    """A free-form episode: an app (default: the first installed), a start page and an instruction,
    no verifier (reward 0); the screens and the tools both work."""
    app = app or default_app()
    return EpisodeSpec(
        id=f"{app}.free", app=app, start_url=start_url, instruction=instruction, persona=persona,
        role=role, seed=seed, max_steps=max_steps, setup=setup, interfaces=interfaces,
    )


def fork_world(store: Any, spec: EpisodeSpec, apps: Iterable[Any] = ()) -> tuple[World, str | None]:
    """A new world for ``spec`` from ``store``, its setup applied, and the persona to sign in (the
    world is dropped again if either fails). Blocking: call it in a worker thread from async code."""
    world = store.create(spec.seed, spec.scale)
    try:
        if spec.setup is not None:
            spec.setup(world)
        return world, resolve_persona(world, spec, apps)
    except BaseException:
        store.drop(world)
        raise


def resolve_persona(world: World, spec: EpisodeSpec, apps: Iterable[Any] = ()) -> str | None:
    """The username to sign in for ``spec`` in ``world`` (see :class:`EpisodeSpec`). ``apps``: the
    AppSpecs the host serves (default: the installed ones), for the start app's default role; an app
    without one signs in its world's first active user."""
    if spec.persona is not None:
        with closing(world.connect()) as conn:
            row = conn.execute("SELECT username FROM identity_user WHERE username = ?", (spec.persona,)).fetchone()
        if row is None:
            raise ValueError(f"persona {spec.persona!r} of episode {spec.id!r} is not a user of this world")
        return spec.persona
    role = spec.role
    if role is None:
        return None
    if role == DEFAULT_ROLE:
        from apps_web import registry

        app = next((a for a in apps if a.name == spec.app), None) or registry.get(spec.app)
        role = app.default_role if app is not None else None
    with closing(world.connect()) as conn:
        try:
            if role is None:
                row = conn.execute("SELECT username FROM identity_user WHERE active ORDER BY id LIMIT 1").fetchone()
            else:
                row = conn.execute(
                    "SELECT username FROM identity_user WHERE role = ? AND active ORDER BY id LIMIT 1", (role,)
                ).fetchone()
        except Exception:  # a world without the identity tables (should not happen): nobody signs in
            return None
    if row is None:
        raise ValueError(f"no active user{f' with role {role!r}' if role else ''} in this world for episode {spec.id!r}")
    return row[0]


__all__ = ["DEFAULT_MAX_STEPS", "DEFAULT_ROLE", "EpisodeSpec", "TaskSource", "default_app", "free_spec", "resolve_persona"]
