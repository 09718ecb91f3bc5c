"""The co-worker engine as an episode extension: its own writable connection to the episode's world,
one call per step, and the checkpoint state (``episode.extensions["coworkers"]``)."""

from __future__ import annotations

from typing import Any

from .engine import Coworkers


class CoworkerExtension:
    """Runs a :class:`Coworkers` engine on one episode's world."""

    name = "coworkers"

    def __init__(self, engine: Coworkers, world: Any) -> None:
        self.engine = engine
        self.conn = world.connect(readonly=False)
        engine.attach(self.conn)

    @classmethod
    def for_spec(cls, spec: Any, world: Any) -> CoworkerExtension | None:
        """The extension for an episode spec with actors or events (None without either)."""
        actors, events = getattr(spec, "actors", ()), getattr(spec, "events", ())
        if not actors and not events:
            return None
        from .model import default_model

        engine = Coworkers.from_spec(actors, events, getattr(spec, "clock", None), seed=spec.seed, model=default_model(), world=spec.id)
        return cls(engine, world)

    @property
    def in_thread(self) -> bool:
        """Whether the episode should run a step's work off its event loop (a model is asked)."""
        return self.engine.model is not None

    def after_step(self, *, persona: str | None, action_name: str | None) -> list[dict[str, Any]]:
        return self.engine.after_step(self.conn, persona=persona, action_name=action_name)

    def pending(self) -> list[dict[str, Any]]:
        return self.engine.pending()

    def state(self) -> dict[str, Any]:
        return self.engine.state()

    def restore(self, state: dict[str, Any]) -> None:
        self.engine.restore(state)

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:
            pass


__all__ = ["CoworkerExtension"]
