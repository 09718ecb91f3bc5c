"""The co-worker engine: reads the persona's requests from each step's changes, lets the addressed
co-workers decide, schedules their replies on the world clock, moves the clock, delivers what is due.

Deterministic: requests are read in app and row order, the wording comes from a counter seeded by the
episode's seed, and time is only the world clock. ``state()``/``restore()`` carry everything needed to
resume an episode from a checkpoint.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from apps_web.messaging import Outbound, Reply, Request
from apps_web.world import WorldDiff
from apps_web.world import changelog as _changelog
from apps_web.world.meta import read_clock, write_clock

from .policy import Decision, decide
from .profile import Actor, parse_duration
from .wording import word

DEFAULT_PER_STEP = timedelta(minutes=1)


class CoworkerSpecError(ValueError):
    """Actors, events or clock options that cannot work; the message says which and why."""


@dataclass(frozen=True)
class Event:
    """A task's scheduled event: at ``at`` after the episode's start, or after step ``after_step``;
    a ``message`` someone sends, or an ``update`` of the world (a callable on a sqlite3 connection,
    built by the task from its set-up format)."""

    at: timedelta | None = None
    after_step: int | None = None
    message: Mapping[str, Any] | None = None
    update: Callable[[sqlite3.Connection], None] | None = None
    label: str = ""

    def __post_init__(self) -> None:
        if (self.at is None) == (self.after_step is None):
            raise CoworkerSpecError(f"events{self.label}: give exactly one of 'at' (such as '+45m') or 'after_step' (a step number)")
        if (self.message is None) == (self.update is None):
            raise CoworkerSpecError(f"events{self.label}: give exactly one of 'message' or 'update'")


def adapters() -> dict[str, Any]:
    """The installed apps' co-worker adapters, by app name (apps declare them in their AppSpec)."""
    from apps_web import registry

    return {spec.name: spec.messaging() for spec in registry.discover() if spec.messaging is not None}


def parse_offset(value: Any) -> timedelta:
    text = str(value).strip()
    return parse_duration(text[1:] if text.startswith("+") else text, "an event's 'at'")


class Coworkers:
    """The world's people who answer the persona. Create with :meth:`from_spec`; call :meth:`attach`
    once on the episode's world (after its set-up), then :meth:`after_step` after every step."""

    def __init__(self, actors: Iterable[Actor], events: Iterable[Event] = (), *, per_step: timedelta = DEFAULT_PER_STEP,
                 seed: int = 0, apps: Mapping[str, Any] | None = None, model: Any = None, world: str = "") -> None:
        self.actors: dict[str, Actor] = {}
        for a in actors:
            if a.user in self.actors:
                raise CoworkerSpecError(f"actor {a.user!r} is declared twice")
            self.actors[a.user] = a
        self.events = list(events)
        self.per_step = per_step
        self.seed = seed
        # Optional: a sandbox.coworkers.model.ModelCoworkers that makes the decisions within the policy;
        # ``world`` names the world in its cache scope (the task id), with the seed and the conversation.
        self.model = model
        self.world = world
        self.apps = dict(apps) if apps is not None else adapters()
        for i, e in enumerate(self.events):
            if e.message is not None:
                app = e.message.get("app")
                if app not in self.apps or not hasattr(self.apps[app], "send"):
                    able = [n for n, a in self.apps.items() if hasattr(a, "send")]
                    raise CoworkerSpecError(f"events[{i}].message.app {app!r} cannot carry messages (apps that can: {', '.join(able) or 'none'})")
        self.start: datetime | None = None
        self.now: datetime | None = None
        self.step = 0
        self.seq = 0
        self.count = 0  # replies worded so far: the wording's random position
        self._pending: list[dict[str, Any]] = []  # {"due", "order", "reply" | "event"}
        self._order = 0
        self._names: dict[str, str] = {}
        self._fired_events: set[int] = set()  # events already fired

    # -- creation ----------------------------------------------------------------------------------
    @classmethod
    def from_spec(cls, actors: Iterable[Actor | Mapping[str, Any]], events: Iterable[Event | Mapping[str, Any]] = (),
                  clock: Mapping[str, Any] | None = None, seed: int = 0, *, apps: Mapping[str, Any] | None = None,
                  model: Any = None, world: str = "") -> Coworkers:
        """From plain data (a task's ``actors``, ``events`` and ``clock``) or ready models."""
        try:
            parsed = [a if isinstance(a, Actor) else Actor.model_validate(a) for a in actors]
        except ValueError as exc:
            raise CoworkerSpecError(f"actors: {exc}") from None
        evs = []
        for i, e in enumerate(events):
            if isinstance(e, Event):
                evs.append(e)
                continue
            e = dict(e)
            unknown = set(e) - {"at", "after_step", "message", "update"}
            if unknown:
                raise CoworkerSpecError(f"events[{i}]: unknown keys {', '.join(sorted(unknown))} (an event has at or after_step, and message or update)")
            try:
                at = parse_offset(e["at"]) if e.get("at") is not None else None
            except ValueError as exc:
                raise CoworkerSpecError(f"events[{i}].at: {exc}") from None
            evs.append(Event(at=at, after_step=e.get("after_step"), message=e.get("message"), update=e.get("update"), label=f"[{i}]"))
        per_step = DEFAULT_PER_STEP
        unknown = set(clock or {}) - {"per_step"}
        if unknown:
            raise CoworkerSpecError(f"clock: unknown keys {', '.join(sorted(unknown))} (the clock takes per_step, such as '1m')")
        if clock and clock.get("per_step") is not None:
            try:
                per_step = parse_duration(clock["per_step"], "clock.per_step")
            except ValueError as exc:
                raise CoworkerSpecError(str(exc)) from None
        return cls(parsed, evs, per_step=per_step, seed=seed, apps=apps, model=model, world=world)

    def attach(self, conn: sqlite3.Connection) -> None:
        """Start on the episode's world: its clock is the start; timed task events are scheduled."""
        if self.start is not None:
            return
        self.start = self.now = read_clock(conn)
        self.seq = _changelog.last_seq(conn)
        missing = [u for u in self.actors if not conn.execute("SELECT 1 FROM identity_user WHERE username = ?", (u,)).fetchone()]
        if missing:
            raise CoworkerSpecError(f"actors {', '.join(missing)} are not users of this world")
        for i, e in enumerate(self.events):
            if e.at is not None:
                self._schedule(self.start + e.at, {"event": i})

    # -- stepping ----------------------------------------------------------------------------------
    def after_step(self, conn: sqlite3.Connection, diff: WorldDiff | None = None, *, persona: str | None,
                   action_name: str | None = None) -> list[dict[str, Any]]:
        """Read the step's requests, schedule replies, move the clock, deliver what is due; commits.
        Returns the deliveries (jsonable)."""
        self.attach(conn)
        assert self.now is not None
        self.step += 1
        if diff is None:
            diff, _ = _changelog.changes_since(conn, self.seq)
        persona_id = self._user_id(conn, persona) if persona else None
        if persona_id is not None and not diff.is_empty:
            for app, adapter in self.apps.items():
                for request in adapter.inbound(conn, diff, persona_id):
                    self._answer(conn, request)
        due_wait = self.next_due()
        self.now = self.now + self.per_step
        if action_name == "wait" and due_wait is not None and due_wait > self.now:
            self.now = due_wait
        delivered = self._deliver_due(conn)
        write_clock(conn, self.now)
        conn.commit()
        self.seq = _changelog.last_seq(conn)
        return delivered

    def wait(self, conn: sqlite3.Connection, *, persona: str | None) -> list[dict[str, Any]]:
        """A step that only waits: the clock moves to the next pending event (at least one quantum)."""
        return self.after_step(conn, persona=persona, action_name="wait")

    def next_due(self) -> datetime | None:
        timed = [datetime.fromisoformat(p["due"]) for p in self._pending if p.get("due")]
        return min(timed) if timed else None

    def pending(self) -> list[dict[str, Any]]:
        """What is still to happen, soonest first (jsonable)."""
        out = []
        for p in sorted(self._pending, key=_sort_key):
            item = {"due": p.get("due"), "after_step": p.get("after_step")}
            if "reply" in p:
                r = p["reply"]
                item.update(kind="reply", app=r["app"], actor=r["actor"], to=r["to"], decision=r["decision"], text=r["text"])
                if p.get("model"):
                    item["model"] = p["model"]
            else:
                ev = self.events[p["event"]]
                item.update(kind="message" if ev.message is not None else "update", event=p["event"])
            out.append(item)
        for i, e in enumerate(self.events):
            if e.after_step is not None and not self._fired(i):
                out.append({"due": None, "after_step": e.after_step, "kind": "message" if e.message is not None else "update", "event": i})
        return out

    # -- checkpoints -------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        return {
            "start": self.start.isoformat() if self.start else None,
            "now": self.now.isoformat() if self.now else None,
            "step": self.step, "seq": self.seq, "count": self.count, "order": self._order,
            "pending": [dict(p) for p in self._pending], "fired": sorted(self._fired_set()),
        }

    def restore(self, state: Mapping[str, Any]) -> None:
        self.start = datetime.fromisoformat(state["start"]) if state.get("start") else None
        self.now = datetime.fromisoformat(state["now"]) if state.get("now") else None
        self.step, self.seq, self.count, self._order = state["step"], state["seq"], state["count"], state["order"]
        self._pending = [dict(p) for p in state["pending"]]
        self._fired_events = set(state.get("fired", []))

    # -- internals ---------------------------------------------------------------------------------
    def _fired_set(self) -> set[int]:
        return self._fired_events

    def _fired(self, i: int) -> bool:
        return i in self._fired_set()

    def _schedule(self, due: datetime | None, item: dict[str, Any]) -> None:
        self._order += 1
        self._pending.append({"due": due.isoformat() if due else None, "order": self._order, **item})

    def _user_id(self, conn: sqlite3.Connection, username: str) -> int | None:
        row = conn.execute("SELECT id FROM identity_user WHERE username = ?", (username,)).fetchone()
        return row[0] if row else None

    def _name(self, conn: sqlite3.Connection, username: str | None) -> str:
        if not username:
            return ""
        if username not in self._names:
            actor = self.actors.get(username)
            row = conn.execute("SELECT first_name || ' ' || last_name FROM identity_user WHERE username = ?", (username,)).fetchone()
            self._names[username] = (actor.name if actor and actor.name else None) or (row[0].strip() if row and row[0] else username)
        return self._names[username]

    def _answer(self, conn: sqlite3.Connection, request: Request) -> None:
        for username in request.to:
            actor = self.actors.get(username)
            if actor is None or username == request.sender:
                continue
            decision = decide(actor, request, others=self.actors)
            rng = random.Random(f"{self.seed}:{self.count}")
            self.count += 1
            text, record = None, None
            if self.model is not None and decision.kind != "out_of_office":
                decision, text, record = self._ask_model(conn, actor, request, decision)
            names = {u: self._name(conn, u) for u in {decision.final.to, actor.manager} if u}
            if text is None:
                text = word(decision, actor, requester=self._name(conn, request.sender), rng=rng, names=names)
            due = self._due(actor, request, decision)
            final = decision.final
            verdict = None
            if request.kind == "approval" and final.kind in ("approve", "refuse"):
                verdict = "approved" if final.kind == "approve" else "rejected"
            reply = Reply(app=request.app, actor=username, to=(request.sender,), text=text, at=due, ref=dict(request.ref),
                          subject=request.subject, decision=final.kind if decision.kind != "out_of_office" else "out_of_office",
                          verdict=verdict)
            self._schedule(due, {"reply": reply.to_dict(), **({"model": record} if record is not None else {})})

    def _ask_model(self, conn: sqlite3.Connection, actor: Actor, request: Request, decision: Decision) -> tuple[Decision, str | None, dict[str, Any]]:
        """The model's decision and text within the policy, or the policy's decision (text None) when
        the model's is refused; the record says which."""
        content = decision.final
        names = {u: self._name(conn, u) for u in {*(d.to for d in actor.delegates), actor.manager,
                                                  *(u for f in actor.knows for u in f.share_with)} if u}
        scope = {"use": "coworker", "world": self.world, "seed": self.seed, "app": request.app, "conversation": request.ref,
                 "actor": actor.user}
        outcome = self.model.reply(actor, request, content, name=self._name(conn, actor.user), requester=self._name(conn, request.sender),
                                   names=names, scope=scope)
        if outcome.decision is None:
            return decision, None, outcome.record
        chosen = outcome.decision
        if decision.kind == "defer":
            chosen = Decision("defer", at=decision.at, then=chosen)
        return chosen, outcome.text, outcome.record

    def _due(self, actor: Actor, request: Request, decision: Decision) -> datetime:
        if decision.kind == "out_of_office":  # an automatic reply: at once
            return request.at
        if decision.kind == "defer" and decision.at is not None:
            return decision.at + actor.delay
        due = request.at + actor.delay
        return due if actor.at_work(due) else actor.next_start(due)

    def _deliver_due(self, conn: sqlite3.Connection) -> list[dict[str, Any]]:
        assert self.now is not None
        out: list[dict[str, Any]] = []
        for i, e in enumerate(self.events):  # events after a step number
            if e.after_step is not None and self.step >= e.after_step and not self._fired(i):
                self._schedule(self.now, {"event": i})
                self._fired_set().add(i)
        now = self.now.isoformat()
        due = sorted((p for p in self._pending if p["due"] is not None and p["due"] <= now), key=_sort_key)
        for p in due:
            self._pending.remove(p)
            if "reply" in p:
                reply = Reply.from_dict(p["reply"])
                written = self.apps[reply.app].deliver(conn, reply)
                out.append({"kind": "reply", "at": p["due"], "app": reply.app, "actor": reply.actor, "to": list(reply.to),
                            "decision": reply.decision, "verdict": reply.verdict, "text": reply.text, **({"written": written} if written else {}),
                            **({"model": p["model"]} if p.get("model") else {})})
            else:
                out.append(self._fire(conn, p["event"], datetime.fromisoformat(p["due"])))
                self._fired_set().add(p["event"])
        return out

    def _fire(self, conn: sqlite3.Connection, i: int, at: datetime) -> dict[str, Any]:
        e = self.events[i]
        if e.update is not None:
            e.update(conn)
            return {"kind": "update", "at": at.isoformat(), "event": i}
        m = dict(e.message or {})
        to = m.get("to") or ()
        msg = Outbound(app=m["app"], sender=m["from"], text=str(m["text"]), at=at, to=tuple([to] if isinstance(to, str) else to),
                       conversation=m.get("conversation"), subject=str(m.get("subject") or ""))
        written = self.apps[msg.app].send(conn, msg)
        return {"kind": "message", "at": at.isoformat(), "event": i, "app": msg.app, "from": msg.sender, "to": list(msg.to),
                "text": msg.text, **({"written": written} if written else {})}


def _sort_key(p: Mapping[str, Any]) -> tuple[str, int]:
    return (p.get("due") or "", p.get("order", 0))


__all__ = ["Coworkers", "CoworkerSpecError", "Event", "adapters", "parse_offset"]
