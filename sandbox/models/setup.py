"""The CLI's model options (``--judge``, ``--coworkers``) set for the process while a run or a
validation plays, and put back afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_active: dict[str, Any] = {}


@contextmanager
def models_in_use(judge: str | None, coworkers: str | None, ray: Any = None) -> Iterator[None]:
    """``judge``: a model spec (``openai:MODEL@URL``...) for judge checks, or None (not graded);
    ``coworkers``: ``policy``/None, or ``model:<spec>``. ValueError on a bad spec. With ``ray`` (the
    run's :class:`~sandbox.cluster.RayOptions`) the specs go to the cluster's actors, which ask the
    models themselves (each with its node's reply cache); this process asks none."""
    from sandbox.coworkers.model import parse_mode, use_model
    from verifiers.judge import use_judge

    from .judge import ModelJudge

    model_judge = ModelJudge(judge) if judge else None
    mates = parse_mode(coworkers)
    _active.clear()
    if ray is not None:
        for made in (model_judge, mates):  # checked here, so a bad spec stops the run before the cluster starts
            if made is not None:
                made.close()
        ray.judge, ray.coworkers = judge, coworkers if mates else None
        _active.update(ray=bool(model_judge or mates))
        yield
        return
    previous_judge = use_judge(model_judge) if model_judge else None
    previous_mates = use_model(mates) if mates else None
    _active.update(judge=model_judge, coworkers=mates)
    try:
        yield
    finally:
        if model_judge:
            use_judge(previous_judge)
            model_judge.close()
        if mates:
            use_model(previous_mates)
            mates.close()


def models_summary() -> str:
    """What the models did in the last run: requests sent, replies from the cache."""
    if _active.get("ray"):
        return "asked by the Ray actors (each node keeps its own reply cache)"
    parts = []
    for label, user in (("judge", _active.get("judge")), ("co-workers", _active.get("coworkers"))):
        if user is not None:
            u = user.client.usage
            parts.append(f"{label} {user.name}: {u['requests']} request(s), {u['cached']} from the cache, "
                         f"{u['input_tokens']} in / {u['output_tokens']} out tokens")
    return "; ".join(parts) or "none"


__all__ = ["models_in_use", "models_summary"]
