"""Connecting to a Ray cluster and starting the sandbox's actors on it."""

from __future__ import annotations

import re

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Callable

from .node import Node, NodeSetup


log = logging.getLogger(__name__)


class RayUnavailable(RuntimeError):
    """Ray is not installed, or no cluster answers at the given address."""


# auto, local, HOST:PORT or ray://HOST:PORT (a malformed one is refused here, not after Ray's 60 s)
_ADDRESS = re.compile(r"auto|local|(ray://)?([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}")

@dataclass
class RayOptions:
    """Where and how a run or a validation plays on Ray.

    ``address``: ``auto`` joins the cluster started on this machine with ``ray start``; ``local``
    starts a single-node Ray here (trying it out, benchmarks); anything else is a cluster address
    (``HOST:6379`` or ``ray://HOST:10001``). ``actors`` defaults to the cluster's CPUs divided by
    ``cpus_per_actor``; each actor plays up to ``slots`` episodes at once (the run's ``workers``).
    """

    address: str = "auto"
    actors: int | None = None
    cpus_per_actor: float = 2.0
    store: str | None = None  # world store on every node (None: the node's $SANDBOX_HOME or ~/.cache/cua-sandbox)
    templates: str | None = None  # a template folder the nodes share (None: each node builds its own, by seed)
    max_attempts: int = 3  # an item whose actor died this many times becomes an error episode
    grace_s: float = 60.0  # an item still running this long past its time limit: its actor is hung, restart it
    max_restarts: int = 4  # per actor; Ray restarts a dead actor on any node with room for it
    # How a node makes its task source from its world store (a picklable callable; None: the task
    # templates installed with the package). Validation passes its registry's task folder this way.
    source: Callable[[Any], Any] | None = None
    # Model specs the actors use (set by ``models_in_use``): a judge for judge checks, model co-workers.
    judge: str | None = None
    coworkers: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.address, str) or not _ADDRESS.fullmatch(self.address):
            raise ValueError("the Ray address must be 'auto', 'local' or a cluster address like HOST:6379 or ray://HOST:10001")
        if self.actors is not None and self.actors < 1:
            raise ValueError(f"--ray-actors must be at least 1, got {self.actors}")
        if self.cpus_per_actor <= 0:
            raise ValueError(f"--ray-cpus-per-actor must be positive, got {self.cpus_per_actor}")
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {self.max_attempts}")


def ray_options(value: RayOptions | str | None, **overrides: Any) -> RayOptions | None:
    """``None``, an address string or options -> options (``overrides`` that are not None win)."""
    if value is None:
        return None
    opts = RayOptions(address=value) if isinstance(value, str) else value
    for key, val in overrides.items():
        if val is not None:
            setattr(opts, key, val)
    opts.__post_init__()
    return opts


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailable("Ray is not installed: pip install 'cua-sandbox[ray]' (on the driver and on every node)") from None
    return ray


def connect(opts: RayOptions) -> bool:
    """Join (or start) the cluster unless this process is already connected; True if we connected
    (the caller then disconnects with ``ray.shutdown()``)."""
    ray = _ray()
    if ray.is_initialized():
        return False
    common = {"log_to_driver": False, "logging_level": "WARNING", "configure_logging": True}
    try:
        if opts.address == "local":
            ray.init(address="local", include_dashboard=False, **common)  # a new one, even if another runs here
        else:
            ray.init(address=opts.address, **common)
    except ConnectionError as exc:
        hint = ("start one with `ray start --head` (then `ray start --address=HEAD:6379` on the other machines), "
                "or use --ray local to run on this machine alone") if opts.address == "auto" else "check the address and that the head node runs"
        raise RayUnavailable(f"no Ray cluster at {opts.address!r}: {exc}; {hint}") from None
    return True


def actor_count(opts: RayOptions) -> int:
    if opts.actors is not None:
        return opts.actors
    cpus = float(_ray().cluster_resources().get("CPU", 0))
    return max(1, int(cpus // opts.cpus_per_actor))


@dataclass
class NodeHandle:
    """One actor as the driver sees it."""

    actor: Any
    index: int
    info: dict[str, Any]

    @property
    def label(self) -> str:
        return f"actor {self.index} (pid {self.info.get('pid')} on {self.info.get('host')})"


async def start_nodes(opts: RayOptions, slots: int, *, timeout_s: float = 300.0) -> list[NodeHandle]:
    """Start the actors and wait until each has its Chromium and app host running."""
    ray = _ray()
    setup = NodeSetup(store=opts.store, templates=opts.templates, source=opts.source, judge=opts.judge, coworkers=opts.coworkers)
    n = actor_count(opts)
    cls = ray.remote(Node).options(
        num_cpus=opts.cpus_per_actor, max_restarts=opts.max_restarts, max_task_retries=0,
        max_concurrency=slots + 4, scheduling_strategy="SPREAD",
    )  # fmt: skip
    actors = [cls.remote(setup) for _ in range(n)]
    total = ray.cluster_resources().get("CPU", 0)
    try:
        infos = await asyncio.wait_for(asyncio.gather(*(asyncio.wrap_future(a.start.remote().future()) for a in actors),
                                                      return_exceptions=True), timeout_s)  # fmt: skip
    except asyncio.TimeoutError:
        for a in actors:
            ray.kill(a)
        raise RayUnavailable(f"{n} actor(s) of {opts.cpus_per_actor:g} CPU did not start within {timeout_s:g}s; the cluster has {total:g} CPUs "
                             "(lower --ray-actors or --ray-cpus-per-actor)") from None
    # An actor that cannot start (no Chromium on its node, a host too busy to start an app host in
    # time) is dropped; the run goes on with the others, and fails only when none started.
    started = [(a, info) for a, info in zip(actors, infos) if not isinstance(info, BaseException)]
    failed = [info for info in infos if isinstance(info, BaseException)]
    for a, info in zip(actors, infos):
        if isinstance(info, BaseException):
            ray.kill(a, no_restart=True)
    if not started:
        raise RayUnavailable(f"no sandbox actor could start: {failed[0]}")
    if failed:
        log.warning("%d of %d sandbox actors could not start and were dropped: %s", len(failed), n, failed[0])
    return [NodeHandle(a, i, info) for i, (a, info) in enumerate(started)]


async def stop_nodes(nodes: list[NodeHandle]) -> None:
    """Close every actor's runtime (its worlds dropped), then end the actors."""
    ray = _ray()
    closing = [asyncio.wrap_future(n.actor.close.remote().future()) for n in nodes]
    await asyncio.gather(*closing, return_exceptions=True)
    for n in nodes:
        try:
            ray.kill(n.actor, no_restart=True)
        except Exception:
            pass
