"""One task instance: a template resolved for a seed (parameters, instruction, steps, verifier).

Instantiating never touches a live world: parameters are drawn from an in-memory copy of the seed's
template world, with the set-up changes applied to that copy too, so the instance (including values
computed after set-up) is known before any episode starts. ``setup(world)`` then applies the same
changes to the episode's forked world, where they give the same result.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from apps_web.world import World, read_meta
from verifiers import Verdict, Verifier, VerifyContext

from .loader import LoadedTask
from .model import TERMINAL_STEPS, AnswerStep, ForEach, Macro, NearMiss, SetupOp, TaskTemplate, Use, _Step, parse_steps, step_kind
from .params import DrawContext, InstanceError, apply_changes, draw_param, draw_persona
from .render import RenderError, evaluate, render_text, render_value

MAX_MACRO_DEPTH = 8
DEFAULT_FINAL_ANSWER = "Done."


TOOL_ORACLE = "tool-oracle"  # the solution name of a task's oracle in tool calls


@dataclass
class Solution:
    """A resolved solution: GUI steps (the player resolves their targets on the live page), or
    direct world changes (``mutate``), ending with an answer, an infeasibility report or neither."""

    name: str
    kind: str  # "oracle" or a near-miss kind
    steps: list[_Step] = field(default_factory=list)
    mutate: list[SetupOp] | None = None
    description: str | None = None
    score: tuple[float, float] | None = None  # the range a near-miss must score in (None: by its kind)

    @property
    def via(self) -> str:
        """gui (steps in the browser), direct (world changes) or answer (only a final answer)."""
        if self.mutate is not None:
            return "direct"
        return "gui" if any(not isinstance(s, TERMINAL_STEPS) for s in self.steps) else "answer"


@dataclass
class TaskInstance:
    template: TaskTemplate
    verifier: Verifier
    seed: int
    params: dict[str, Any]
    persona: str  # username
    instruction: str
    start_url: str
    oracle: Solution
    near_misses: list[Solution]
    volatile: tuple[str, ...] = ()
    tool_oracle: Solution | None = None  # the oracle in tool calls, for a task that allows screens and tools
    actors: list[dict[str, Any]] = field(default_factory=list)  # rendered and checked co-worker profiles
    events: list[dict[str, Any]] = field(default_factory=list)  # {at | after_step, message | update (a callable)}
    clock: dict[str, Any] | None = None

    @property
    def id(self) -> str:
        return self.template.id

    @property
    def app(self) -> str:
        return self.template.app

    @property
    def max_steps(self) -> int:
        return self.template.max_steps

    # -- the episode contract
    def apply_setup(self, conn: sqlite3.Connection) -> None:
        """Apply the set-up changes to a world connection (checks inserted ids match the instance)."""
        params = dict(self.params)
        apply_changes(conn, self.template.setup, params, "setup")
        for op in self.template.setup:
            if op.as_ and params[op.as_] != self.params.get(op.as_):
                raise InstanceError(f"setup: the inserted {op.as_} got id {params[op.as_]}, expected {self.params.get(op.as_)}: the world differs from its template")

    def setup(self, world: World | Path | str) -> None:
        """Apply the set-up changes to the episode's world (before the browser opens)."""
        if not self.template.setup:
            return
        path = world.path if isinstance(world, World) else Path(world)
        conn = sqlite3.connect(path)
        try:
            conn.execute("PRAGMA foreign_keys=ON")
            self.apply_setup(conn)
            conn.commit()
        finally:
            conn.close()

    def apply_mutations(self, world: World | Path | str, solution: Solution) -> None:
        """Apply a direct near-miss's world changes (as if an agent had made them)."""
        if not solution.mutate:
            return
        path = world.path if isinstance(world, World) else Path(world)
        conn = sqlite3.connect(path)
        try:
            conn.execute("PRAGMA foreign_keys=ON")
            apply_changes(conn, solution.mutate, dict(self.params), f"near_misses.{solution.name}.mutate")
            conn.commit()
        finally:
            conn.close()

    def context(self, ctx: VerifyContext) -> VerifyContext:
        """The context with this instance's parameters and the app's volatile names."""
        ignore = list(dict.fromkeys([*ctx.ignore, *self.volatile]))
        return ctx.model_copy(update={"params": {**self.params, **ctx.params}, "ignore": ignore, "instruction": ctx.instruction or self.instruction})

    def verify(self, ctx: VerifyContext) -> Verdict:
        return self.verifier.verify(self.context(ctx))

    def solutions(self) -> list[Solution]:
        return [self.oracle, *self.near_misses]

    def near_miss(self, name: str) -> Solution:
        for s in self.near_misses:
            if s.name == name:
                return s
        raise KeyError(f"task {self.id} has no near-miss {name!r} (near-misses: {', '.join(s.name for s in self.near_misses)})")

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "seed": self.seed,
            "app": self.app,
            "persona": self.persona,
            "start_url": self.start_url,
            "instruction": self.instruction,
            "max_steps": self.max_steps,
            "params": _plain(self.params),
            "oracle": [s.model_dump(exclude_none=True, exclude_defaults=True, by_alias=True) for s in self.oracle.steps],
            "near_misses": {nm.name: {"kind": nm.kind, "via": nm.via, "description": nm.description} for nm in self.near_misses},
        }


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return value


# -- macros ------------------------------------------------------------------------------------------------
def expand(steps: list[Any], params: dict[str, Any], macros: dict[str, Macro], where: str, depth: int = 0) -> list[_Step]:
    """Render steps with the parameters, expanding ``use`` macros (their args join the parameters)."""
    out: list[_Step] = []
    for i, step in enumerate(steps):
        w = f"{where}[{i}]"
        if isinstance(step, Use):
            if depth >= MAX_MACRO_DEPTH:
                raise InstanceError(f"{w}: macros nest deeper than {MAX_MACRO_DEPTH} (a macro uses itself?)")
            macro = macros.get(step.use)
            if macro is None:
                raise InstanceError(f"{w}.use: no macro {step.use!r}")
            try:
                args = {**macro.defaults, **render_value(step.args, params)}
            except RenderError as e:
                raise InstanceError(f"{w}.args: {e}") from None
            out += expand(macro.steps, {**params, **args}, macros, f"{w}({step.use})", depth + 1)
            continue
        if isinstance(step, ForEach):
            try:
                items = evaluate(step.for_each, params)
            except RenderError as e:
                raise InstanceError(f"{w}.for_each: {e}") from None
            if not isinstance(items, (list, tuple)):
                raise InstanceError(f"{w}.for_each: {step.for_each!r} is a {type(items).__name__}, not a list")
            for j, item in enumerate(items):
                out += expand(step.steps, {**params, step.as_: item}, macros, f"{w}[{j}]", depth + 1)
            continue
        data = step.model_dump(exclude_none=True, by_alias=True, exclude_defaults=True)
        data.setdefault(step_kind(step), None)  # the key naming the step's kind, even when it is empty
        try:
            rendered = render_value(data, params)
        except RenderError as e:
            raise InstanceError(f"{w}: {e}") from None
        out += parse_steps([_stringify_text(rendered)])
    return out


def _stringify_text(step: dict[str, Any]) -> dict[str, Any]:
    """Values typed or chosen are text even when a parameter rendered them as numbers or dates."""
    for key in ("text", "option", "type", "answer", "report_infeasible", "goto", "key"):
        if key in step and not isinstance(step[key], str):
            value = step[key]
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            step[key] = value.isoformat() if isinstance(value, (dt.date, dt.datetime)) else str(value)
    return step


# -- instantiation --------------------------------------------------------------------------------------------
def open_world_copy(template_db: Path | str) -> sqlite3.Connection:
    """An in-memory copy of a template world (a few milliseconds), to draw and set up on."""
    src = sqlite3.connect(f"file:{template_db}?mode=ro", uri=True)
    mem = sqlite3.connect(":memory:")
    try:
        src.backup(mem)
    finally:
        src.close()
    return mem


# In-memory copies of template worlds kept per thread, so drawing many instances of one seed copies
# the world once (a copy is 15 MB at scale 1: tens of milliseconds, far more on a busy machine).
_KEPT_COPIES = 3
_copies = threading.local()


@contextmanager
def world_scratch(template_db: Path | str) -> Iterator[sqlite3.Connection]:
    """A pristine in-memory copy of a template world to draw and set up on; whatever is done on it is
    rolled back afterwards, so the next use sees the template again. Copies are kept per thread (a
    connection belongs to its thread), the last few templates used, keyed by the file's identity."""
    path = Path(template_db)
    st = path.stat()
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size, st.st_ino)
    kept: OrderedDict = _copies.__dict__.setdefault("kept", OrderedDict())
    conn = kept.pop(key, None)
    if conn is None:
        conn = open_world_copy(path)
        conn.isolation_level = None  # explicit BEGIN/ROLLBACK only: no statement commits on its own
    conn.execute("BEGIN")
    clean = False
    try:
        yield conn
    finally:
        try:
            conn.execute("ROLLBACK")
            clean = not conn.in_transaction and conn.execute("PRAGMA temp.schema_version").fetchone()[0] == 0
        except sqlite3.Error:
            clean = False
        if clean:
            kept[key] = conn
            while len(kept) > _KEPT_COPIES:
                kept.popitem(last=False)[1].close()
        else:  # something outlived the rollback: never hand this copy out again
            conn.close()


def instantiate(task: LoadedTask, seed: int, template_db: Path | str, *, volatile: tuple[str, ...] = ()) -> TaskInstance:
    """Resolve a template for a seed against the seed's template world (read-only)."""
    t = task.template
    with world_scratch(template_db) as conn:
        meta = read_meta(conn)
        params: dict[str, Any] = {"seed": seed, "task": t.id, "now": meta.clock, "today": meta.clock.date()}
        ctx = DrawContext(conn=conn, task_id=t.id, seed=seed, params=params)
        if t.persona.template is None:
            params["persona"] = draw_persona(ctx, t.persona)
        later = []
        for name, spec in t.params.items():
            if spec.after_setup:
                later.append((name, spec))
                continue
            params[name] = draw_param(ctx, name, spec)
        if t.persona.template is not None:
            try:
                username = render_text(t.persona.template, params)
            except RenderError as e:
                raise InstanceError(f"persona: {e}") from None
            params["persona"] = draw_persona(ctx, type(t.persona)(username=str(username)))
        apply_changes(conn, t.setup, params, "setup")
        for name, spec in later:
            params[name] = draw_param(ctx, name, spec)
        for i, sql in enumerate(t.assert_):
            rows = ctx.query(sql)
            value = next(iter(rows[0].values())) if rows and rows[0] else None
            if not value:
                raise InstanceError(f"assert[{i}]: {sql.strip()!r} does not hold in world seed {seed} (got {value!r})")
        actors = _actors(t, params)
        for i, actor in enumerate(actors):
            if not conn.execute("SELECT 1 FROM identity_user WHERE username = ?", (str(actor["user"]),)).fetchone():
                raise InstanceError(f"actors[{i}].user: {actor['user']!r} is not a user of world seed {seed}")

    def text(value: str, where: str) -> str:
        try:
            return str(render_text(value, params))
        except RenderError as e:
            raise InstanceError(f"{where}: {e}") from None

    oracle = Solution(name="oracle", kind="oracle", steps=_finish(expand(t.oracle, params, task.macros, "oracle")))
    near = [_near_miss(nm, params, task.macros, i) for i, nm in enumerate(t.near_misses)]
    tool_oracle = None
    if t.tool_oracle:
        tool_oracle = Solution(name=TOOL_ORACLE, kind="oracle", steps=_finish(expand(t.tool_oracle, params, task.macros, "tool_oracle")))
    events = [_event(ev, params, i) for i, ev in enumerate(t.events)]
    clock = t.clock.model_dump() if t.clock is not None else None
    return TaskInstance(
        actors=actors,
        events=events,
        clock=clock,
        template=t,
        verifier=task.verifier,
        seed=seed,
        params=params,
        persona=params["persona"]["username"],
        instruction=" ".join(text(t.instruction, "instruction").split()),
        start_url=text(t.start_url, "start_url"),
        oracle=oracle,
        near_misses=near,
        volatile=volatile,
        tool_oracle=tool_oracle,
    )


def _actors(t: TaskTemplate, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The co-worker profiles with the parameters filled in, checked as the engine will read them."""
    from pydantic import ValidationError

    from sandbox.coworkers.profile import Actor

    out = []
    for i, data in enumerate(t.actors):
        try:
            rendered = render_value(data, params)
        except RenderError as e:
            raise InstanceError(f"actors[{i}]: {e}") from None
        try:
            Actor.model_validate(rendered)
        except ValidationError as e:
            problems = "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors())
            raise InstanceError(f"actors[{i}]: {problems}") from None
        out.append(rendered)
    return out


def _event(ev: Any, params: dict[str, Any], i: int) -> dict[str, Any]:
    where = f"events[{i}]"
    data: dict[str, Any] = {"at": ev.at, "after_step": ev.after_step}
    if ev.message is not None:
        try:
            data["message"] = render_value(ev.message.model_dump(by_alias=True, exclude_none=True), params)
        except RenderError as e:
            raise InstanceError(f"{where}.message: {e}") from None
    else:
        op, snapshot = ev.update, dict(params)

        def update(conn: sqlite3.Connection, op: SetupOp = op, snapshot: dict[str, Any] = snapshot) -> None:
            apply_changes(conn, [op], dict(snapshot), f"{where}.update")

        data["update"] = update
    return data


def _finish(steps: list[_Step]) -> list[_Step]:
    """Solutions end the episode like an agent must: with an answer (or infeasible) step."""
    if steps and isinstance(steps[-1], TERMINAL_STEPS):
        return steps
    return [*steps, AnswerStep(answer=DEFAULT_FINAL_ANSWER)]


def _near_miss(nm: NearMiss, params: dict[str, Any], macros: dict[str, Macro], i: int) -> Solution:
    where = f"near_misses[{i}]"
    steps = expand(nm.steps or [], params, macros, f"{where}.steps")
    tail: list[Any] = []
    if nm.answer is not None:
        tail.append({"answer": nm.answer})
    elif nm.report_infeasible is not None:
        tail.append({"report_infeasible": nm.report_infeasible})
    if tail:
        try:
            steps += parse_steps([_stringify_text(render_value(s, params)) for s in tail])
        except RenderError as e:
            raise InstanceError(f"{where}: {e}") from None
    return Solution(name=nm.name, kind=nm.kind, steps=_finish(steps), mutate=list(nm.mutate) if nm.mutate is not None else None,
                    description=nm.description, score=nm.score)
