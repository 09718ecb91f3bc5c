"""The task template model: what a task file (YAML) may say, validated by pydantic.

A template is data: parameters drawn from the world with the seed, set-up changes, an instruction,
a verifier spec (the ``verifiers`` language), an oracle solution and near-miss solutions made of
GUI steps whose targets are found on the live page at run time. Strings may use ``{{ param }}``
(Jinja2) to refer to parameters.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, TypeAdapter, field_validator, model_validator

ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]{1,62}[a-z0-9]$")
NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

Difficulty = Literal["easy", "medium", "hard"]
Category = Literal[
    "single-field-edit",
    "create-with-lookup",
    "answer-lookup",
    "list-question",
    "lead-conversion",
    "board-move",
    "mass-update",
    "workflow",
    "infeasible",
    "long-horizon",
]
NearMissKind = Literal["wrong_record", "wrong_value", "damage", "incomplete", "wrong_answer", "other"]
RESERVED_PARAMS = frozenset({"persona", "seed", "task", "today", "now"})


class Strict(BaseModel):
    """Unknown keys are errors (a typo never silently does nothing)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


# -- targets: how a step finds an element on the live page -------------------------------------------
class Target(Strict):
    """One element, found by role and accessible name, label, text, placeholder or CSS.

    ``within`` scopes the search to another target (a dialog, a form, a row); ``nth`` picks among
    several matches (otherwise exactly one visible match is required). ``exact`` defaults to true for
    role names and text, false for labels (required fields show a "*" in their label).
    """

    role: str | None = None
    name: str | None = None
    label: str | None = None
    text: str | None = None
    placeholder: str | None = None
    css: str | None = None
    exact: bool | None = None
    nth: int | None = None
    within: Target | None = None

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        if isinstance(data, str):  # "Save" alone means the button or link whose name is "Save"
            return {"text": data}
        return data

    @model_validator(mode="after")
    def _one_way(self) -> Target:
        ways = [k for k in ("role", "label", "text", "placeholder", "css") if getattr(self, k) is not None]
        if len(ways) != 1:
            raise ValueError(
                "a target needs exactly one of role, label, text, placeholder or css"
                + (f" (got {', '.join(ways)})" if ways else "")
            )
        if self.name is not None and self.role is None:
            raise ValueError("'name' goes with 'role' (use label, text or css otherwise)")
        return self

    def describe(self) -> str:
        if self.role:
            what = f"{self.role} {self.name!r}" if self.name is not None else self.role
        elif self.label is not None:
            what = f"field labelled {self.label!r}"
        elif self.text is not None:
            what = f"text {self.text!r}"
        elif self.placeholder is not None:
            what = f"field with placeholder {self.placeholder!r}"
        else:
            what = f"css {self.css!r}"
        if self.nth is not None:
            what += f" #{self.nth}"
        return f"{what} in {self.within.describe()}" if self.within else what


# -- steps ----------------------------------------------------------------------------------------------
class _Step(Strict):
    note: str | None = None  # why the step is there (shown when it fails)
    # A step played only when something shows, for a dialog or alert the app raises on some records and
    # not others (a duplicate rule's alert before the second Save): ``if_shown`` is what must show;
    # ``else_shown`` what shows instead when it does not. With both, the player waits until one of them is
    # on the page (a slow page is never taken for the case without); with ``if_shown`` alone it looks once.
    if_shown: Target | None = None
    else_shown: Target | None = None

    @model_validator(mode="after")
    def _condition(self) -> _Step:
        if self.else_shown is not None and self.if_shown is None:
            raise ValueError("'else_shown' goes with 'if_shown'")
        if self.if_shown is not None and isinstance(self, (Use, ForEach)):
            raise ValueError("'if_shown' goes on a step that acts, not on 'use' or 'for_each' (put it on their steps)")
        return self


class Click(_Step):
    click: Target
    button: Literal["left", "right", "middle"] = "left"
    count: int = Field(1, ge=1, le=3)


class Fill(_Step):
    """Replace a field's text: click it, select all, type (dates are typed in the browser's format)."""

    fill: Target
    text: str


class Select(_Step):
    """Choose an option of a native <select> by its visible text, with the mouse and keyboard."""

    select: Target
    option: str


class Lookup(_Step):
    """Type into a type-ahead combobox and click the matching option."""

    lookup: Target
    text: str
    option: str | None = None  # option's accessible name (contains); defaults to ``text``


class Drag(_Step):
    drag: Target
    to: Target


class TypeText(_Step):
    type: str = Field(min_length=1)


class KeyPress(_Step):
    key: str = Field(min_length=1)
    repeat: int = Field(1, ge=1, le=100)


class Goto(_Step):
    goto: str = Field(min_length=1)  # a path on the app host, or a full URL


class Back(_Step):
    back: Literal[True]


class ScrollTo(_Step):
    scroll_to: Target


class WaitFor(_Step):
    """Not an action: the player waits for the element (or URL) before the next step."""

    wait_for: Target | None = None
    url: str | None = None  # a substring of the URL to wait for

    @model_validator(mode="before")
    @classmethod
    def _url_inside(cls, data: Any) -> Any:
        # `wait_for: {url: ...}` reads naturally; it means the URL, not an element.
        if isinstance(data, dict) and isinstance(data.get("wait_for"), dict) and set(data["wait_for"]) == {"url"}:
            data = {**data, "url": data["wait_for"]["url"], "wait_for": None}
        return data

    @model_validator(mode="after")
    def _something(self) -> WaitFor:
        if self.wait_for is None and self.url is None:
            raise ValueError("wait_for needs a target or {url: ...}")
        return self


class AnswerStep(_Step):
    answer: str = Field(min_length=1)


class Infeasible(_Step):
    report_infeasible: str = Field(min_length=1)


class RawAction(_Step):
    """A canonical action as is (coordinates and all); for what no other step expresses."""

    action: dict[str, Any]


class ToolStep(_Step):
    """One of the apps' tools, by name, with its arguments: ``{tool: crm_update_opportunity, args:
    {record_id: "{{ opp.id }}", stage: Closed Won}}`` (oracles of tasks that allow tools)."""

    tool: str = Field(min_length=1, max_length=64)
    args: dict[str, Any] = Field(default_factory=dict)


class Use(_Step):
    """A macro from the app's macro file, with its arguments."""

    use: str
    args: dict[str, Any] = Field(default_factory=dict)


class ForEach(_Step):
    """The same steps for every item of a list parameter: ``for_each: open_opps`` (an expression),
    ``as: o``, ``steps: [...]`` that refer to ``o``. Unrolled when the instance is made."""

    for_each: str = Field(min_length=1)
    as_: str = Field("item", alias="as")
    steps: list[Step] = Field(min_length=1)  # noqa: F821 - defined below; rebuilt after it

    @field_validator("as_")
    @classmethod
    def _name(cls, v: str) -> str:
        if not NAME_RE.match(v):
            raise ValueError(f"'as' must be a parameter name, got {v!r}")
        return v


STEP_KEYS: dict[str, type[_Step]] = {
    "click": Click,
    "fill": Fill,
    "select": Select,
    "lookup": Lookup,
    "drag": Drag,
    "type": TypeText,
    "key": KeyPress,
    "goto": Goto,
    "back": Back,
    "scroll_to": ScrollTo,
    "wait_for": WaitFor,
    "answer": AnswerStep,
    "report_infeasible": Infeasible,
    "action": RawAction,
    "use": Use,
    "for_each": ForEach,
    "tool": ToolStep,
}
TERMINAL_STEPS = (AnswerStep, Infeasible)


def step_kind(data: Any) -> str | None:
    """The discriminating key of a step: the first key of the mapping that names a step kind."""
    if isinstance(data, _Step):
        return next(k for k, cls in STEP_KEYS.items() if isinstance(data, cls))
    if isinstance(data, dict):
        for key in data:
            if key in STEP_KEYS:
                return key
    return None


# A step is a mapping whose key says its kind: {click: ...}, {fill: ..., text: ...}, {use: macro}...
Step = Annotated[
    Union[tuple(Annotated[cls, Tag(key)] for key, cls in STEP_KEYS.items())],  # type: ignore[misc]
    Discriminator(
        step_kind,
        custom_error_type="step_kind",
        custom_error_message="a step needs one of the keys: " + ", ".join(STEP_KEYS),
    ),
]
ForEach.model_rebuild()
_STEPS = TypeAdapter(list[Step])


def parse_steps(data: Any) -> list[_Step]:
    """Validate a list of steps (raises pydantic's ValidationError)."""
    return _STEPS.validate_python(data)


# -- parameters -------------------------------------------------------------------------------------------
class Param(Strict):
    """One parameter. Exactly one source:

    - ``sql``: rows of a query; ``pick`` one at random (default), ``first``, ``all`` or ``sample``
      (``count`` distinct rows, in query order); a row is a mapping of its columns.
    - ``value``: a query returning one value (a derived value, e.g. an expected answer).
    - ``choice``: one of a list, at random.
    - ``expr``: a Jinja2 expression over earlier parameters (``opp.amount * 2``).
    - ``fake``: a Faker provider (``company``, ``first_name``...) seeded by the task and seed.
    - ``python``: ``module:function(ctx) -> value`` (a hook when data cannot say it).
    ``after_setup`` evaluates the parameter after the set-up changes (for expected values).
    """

    sql: str | None = None
    pick: Literal["random", "first", "all", "sample"] = "random"
    count: int | None = Field(None, ge=1)
    value: str | None = None
    choice: list[Any] | None = None
    expr: str | None = None
    fake: str | None = None
    python: str | None = None
    after_setup: bool = False

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        if isinstance(data, (str, int, float, bool)) or data is None:
            return {"choice": [data]}  # a constant
        if isinstance(data, list):
            return {"choice": data}
        return data

    @model_validator(mode="after")
    def _one_source(self) -> Param:
        sources = [k for k in ("sql", "value", "choice", "expr", "fake", "python") if getattr(self, k) is not None]
        if len(sources) != 1:
            raise ValueError(
                "a parameter needs exactly one of sql, value, choice, expr, fake or python"
                + (f" (got {', '.join(sources)})" if sources else "")
            )
        if self.pick == "sample" and self.count is None:
            raise ValueError("pick: sample needs a count")
        if self.count is not None and self.pick != "sample":
            raise ValueError("count goes with pick: sample")
        if self.sql is None and (self.pick != "random"):
            raise ValueError("pick goes with sql")
        if self.choice is not None and not self.choice:
            raise ValueError("choice needs at least one value")
        if self.python is not None and ":" not in self.python:
            raise ValueError("python is 'module:function'")
        return self


class Persona(Strict):
    """Who is signed in: a username, a user of a role drawn with the seed, or a ``template`` naming
    parameters (``"{{ opp.owner }}"``: the persona is then chosen after the parameters)."""

    username: str | None = None
    role: str | None = None
    template: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"template": data} if "{{" in data else {"username": data}
        return data

    @model_validator(mode="after")
    def _one(self) -> Persona:
        given = [k for k in ("username", "role", "template") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("a persona is a username, {role: ...} or a template such as '{{ opp.owner }}'")
        return self


# -- set-up changes (and direct world mutations of near-misses) ------------------------------------------
class SetupOp(Strict):
    """One change to the world: ``update``/``delete`` rows matching ``where``, ``insert`` a row
    (its new id is stored as parameter ``as``), a raw ``sql`` statement, or a ``python`` hook
    ``module:function(conn, params)``. Values may use ``{{ param }}``."""

    update: str | None = None
    insert: str | None = None
    delete: str | None = None
    sql: str | None = None
    python: str | None = None
    where: dict[str, Any] | None = None
    set: dict[str, Any] | None = None
    values: dict[str, Any] | None = None
    as_: str | None = Field(None, alias="as")

    @model_validator(mode="after")
    def _one(self) -> SetupOp:
        ops = [k for k in ("update", "insert", "delete", "sql", "python") if getattr(self, k) is not None]
        if len(ops) != 1:
            raise ValueError(
                "a change needs exactly one of update, insert, delete, sql or python"
                + (f" (got {', '.join(ops)})" if ops else "")
            )
        if self.update is not None and (not self.where or not self.set):
            raise ValueError("update needs 'where' and 'set'")
        if self.delete is not None and not self.where:
            raise ValueError("delete needs 'where'")
        if self.insert is not None and not self.values:
            raise ValueError("insert needs 'values'")
        if self.set is not None and self.update is None:
            raise ValueError("'set' goes with update")
        if self.values is not None and self.insert is None:
            raise ValueError("'values' goes with insert")
        if self.where is not None and self.update is None and self.delete is None:
            raise ValueError("'where' goes with update or delete")
        if self.as_ is not None and self.insert is None:
            raise ValueError("'as' goes with insert")
        if self.as_ is not None and not NAME_RE.match(self.as_):
            raise ValueError(f"'as' must be a parameter name, got {self.as_!r}")
        return self

    @property
    def table(self) -> str | None:
        return self.update or self.insert or self.delete

    @property
    def kind(self) -> str:
        return next(k for k in ("update", "insert", "delete", "sql", "python") if getattr(self, k) is not None)


# -- co-workers: people who answer, scheduled events, the clock ------------------------------------------
_DURATION_RE = re.compile(r"^\+?\s*\d+(\.\d+)?\s*[smhd]$")


def _actor_keys() -> set[str]:
    from sandbox.coworkers.profile import Actor

    return set(Actor.model_fields)


class EventMessage(Strict):
    """A message someone sends at the event's time: ``from`` (a username) to ``to`` (usernames), or
    into a ``conversation`` (the app's id or name for it)."""

    app: str
    from_: str = Field(alias="from")
    to: str | list[str] | None = None
    conversation: str | int | None = None
    subject: str = ""
    text: str = Field(min_length=1)

    @model_validator(mode="after")
    def _where(self) -> EventMessage:
        if not self.to and self.conversation is None:
            raise ValueError("a message needs 'to' (usernames) or 'conversation'")
        return self


class TaskEvent(Strict):
    """``at: "+45m"`` (world time after the start) or ``after_step: N``; a ``message`` or an ``update``
    (one set-up change, applied to the world when the event comes)."""

    at: str | None = None
    after_step: int | None = Field(None, ge=1)
    message: EventMessage | None = None
    update: SetupOp | None = None

    @model_validator(mode="after")
    def _one_each(self) -> TaskEvent:
        if (self.at is None) == (self.after_step is None):
            raise ValueError("an event needs exactly one of 'at' (such as '+45m') or 'after_step' (a step number)")
        if self.at is not None and not _DURATION_RE.match(self.at.strip()):
            raise ValueError(f"'at' is an offset from the start such as '+45m', '+2h' or '+1d'; got {self.at!r}")
        if (self.message is None) == (self.update is None):
            raise ValueError("an event needs exactly one of 'message' or 'update'")
        if self.update is not None and self.update.kind == "insert" and self.update.as_:
            raise ValueError("an event's insert cannot name its row with 'as' (parameters are drawn before the episode)")
        return self


class ClockSpec(Strict):
    """How the world clock moves in an episode with co-workers: ``per_step`` each step (a ``wait``
    moves it on to the next scheduled event)."""

    per_step: str = "1m"

    @field_validator("per_step")
    @classmethod
    def _duration(cls, v: str) -> str:
        if not _DURATION_RE.match(v.strip()) or v.strip().startswith("+"):
            raise ValueError(f"per_step is a number and a unit (s, m, h or d) such as '1m'; got {v!r}")
        return v


class NearMiss(Strict):
    """A plausible wrong solution that the verifier must fail: GUI ``steps``, or (marked) direct
    world ``mutate`` changes when a GUI path is impractical, plus an optional final ``answer``."""

    name: str
    kind: NearMissKind
    description: str | None = None
    steps: list[Step] | None = None
    mutate: list[SetupOp] | None = None
    answer: str | None = None
    report_infeasible: str | None = None
    score: tuple[float, float] | None = None  # the score range it must get (default: by its kind)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not re.match(r"^[a-z0-9][a-z0-9_-]*$", v):
            raise ValueError("a near-miss name is lowercase letters, digits, '-' or '_'")
        return v

    @field_validator("score", mode="before")
    @classmethod
    def _score(cls, v: Any) -> Any:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            v = (v, v)
        if isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(x, (int, float)) for x in v):
            if not 0 <= v[0] <= v[1] <= 1:
                raise ValueError("a score range is [low, high] within 0..1, low <= high")
            if v[0] >= 1:
                raise ValueError("a near-miss must fail: its score range must stay below 1")
            return tuple(v)
        if v is not None:
            raise ValueError("score is a number or a range [low, high] within 0..1")
        return v

    @model_validator(mode="after")
    def _what(self) -> NearMiss:
        if self.steps is None and self.mutate is None and self.answer is None and self.report_infeasible is None:
            raise ValueError("a near-miss needs steps, mutate, answer or report_infeasible")
        if self.steps is not None and self.mutate is not None:
            raise ValueError("a near-miss uses GUI steps or direct mutate changes, not both")
        if self.answer is not None and self.report_infeasible is not None:
            raise ValueError("a near-miss ends with an answer or report_infeasible, not both")
        return self

    @property
    def via(self) -> str:
        """gui (steps in the browser), direct (world changes) or answer (only a final answer)."""
        if self.mutate is not None:
            return "direct"
        return "gui" if self.steps else "answer"


class Tags(Strict):
    skill: list[str] = Field(default_factory=list)
    occupation: list[str] = Field(default_factory=list)


class TaskTemplate(Strict):
    """One task template: many instances, one per seed."""

    id: str
    app: str
    # The apps the task may use besides its start ``app`` (checked against the installed apps at load);
    # their macros are visible to the template as ``<app>.<macro>``.
    apps: list[str] = Field(default_factory=list)
    title: str
    category: Category
    difficulty: Difficulty
    tags: Tags = Field(default_factory=Tags)
    persona: Persona
    start_url: str = "/"
    instruction: str
    max_steps: int = Field(ge=1, le=500)
    params: dict[str, Param] = Field(default_factory=dict)
    setup: list[SetupOp] = Field(default_factory=list)
    assert_: list[str] = Field(default_factory=list, alias="assert")
    verifier: Any
    oracle: list[Step] = Field(min_length=1)
    # How an agent may work: the apps' screens ("gui"), their tools ("tools"), or both. A task with
    # both proves each: ``oracle`` through the screens and ``tool_oracle`` in tool calls.
    interfaces: list[Literal["gui", "tools"]] = Field(default_factory=lambda: ["gui"], min_length=1)
    tool_oracle: list[Step] = Field(default_factory=list)
    near_misses: list[NearMiss] = Field(default_factory=list)
    # The world's people who answer the persona (sandbox.coworkers.Actor, values may use {{ }}),
    # scheduled events, and how the clock moves (it stays frozen without actors and events).
    actors: list[dict[str, Any]] = Field(default_factory=list)
    events: list[TaskEvent] = Field(default_factory=list)
    clock: ClockSpec | None = None

    @field_validator("actors")
    @classmethod
    def _actor_fields(cls, v: list[dict[str, Any]]) -> list[dict[str, Any]]:
        known = _actor_keys()
        for i, a in enumerate(v):
            unknown = sorted(set(a) - known)
            if unknown:
                raise ValueError(f"actors[{i}]: unknown keys {', '.join(unknown)}; an actor has {', '.join(sorted(known))}")
            if "user" not in a:
                raise ValueError(f"actors[{i}]: 'user' (the co-worker's username) is required")
        return v

    @model_validator(mode="after")
    def _clock_needs_people(self) -> TaskTemplate:
        if self.clock is not None and not self.actors and not self.events:
            raise ValueError("clock moves only in tasks with actors or events: add them, or remove clock")
        return self

    @model_validator(mode="after")
    def _oracles_fit_interfaces(self) -> TaskTemplate:
        gui, tools = "gui" in self.interfaces, "tools" in self.interfaces
        if gui and tools and not self.tool_oracle:
            raise ValueError("a task with interfaces [gui, tools] needs a tool_oracle (tool steps) besides its GUI oracle")
        if self.tool_oracle and not tools:
            raise ValueError("tool_oracle is only for tasks whose interfaces include tools")
        if not gui and any(isinstance(s, (Click, Fill, Select, Lookup, Drag, TypeText, KeyPress, Goto, Back, ScrollTo)) for s in self.oracle):
            raise ValueError("a tools-only task's oracle must be tool steps (and a final answer), not screen steps")
        if gui and any(isinstance(s, ToolStep) for s in self.oracle):
            raise ValueError("tool steps belong in tool_oracle (or make the task tools-only: interfaces: [tools])")
        return self

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not ID_RE.match(v):
            raise ValueError("an id is 3-64 lowercase letters, digits and '-' (e.g. opportunity-close-won)")
        return v

    @field_validator("params")
    @classmethod
    def _param_names(cls, v: dict[str, Param]) -> dict[str, Param]:
        for name in v:
            if not NAME_RE.match(name):
                raise ValueError(f"parameter name {name!r} must be letters, digits and '_'")
            if name in RESERVED_PARAMS:
                raise ValueError(f"parameter name {name!r} is reserved ({', '.join(sorted(RESERVED_PARAMS))})")
        return v

    @field_validator("near_misses")
    @classmethod
    def _unique(cls, v: list[NearMiss]) -> list[NearMiss]:
        seen: set[str] = set()
        for nm in v:
            if nm.name in seen:
                raise ValueError(f"two near-misses are named {nm.name!r}")
            seen.add(nm.name)
        return v

    @field_validator("apps")
    @classmethod
    def _apps(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("apps names an app twice")
        return v

    @model_validator(mode="after")
    def _apps_besides_start(self) -> TaskTemplate:
        if self.app in self.apps:
            raise ValueError(f"apps lists the apps besides the start app; remove {self.app!r} (it is 'app')")
        return self

    @property
    def env_id(self) -> str:
        return f"sandbox/{self.app}.{self.id}"

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "env_id": self.env_id,
            "app": self.app,
            "apps": list(self.apps),
            "title": self.title,
            "category": self.category,
            "difficulty": self.difficulty,
            "tags": self.tags.model_dump(),
            "max_steps": self.max_steps,
            "near_misses": [nm.name for nm in self.near_misses],
        }


class Macro(Strict):
    """Named steps shared by an app's tasks (``tasks/<app>/_macros.yaml``), used as
    ``{use: name, args: {...}}``; the steps may refer to the arguments and the task's parameters."""

    description: str | None = None
    args: list[str] = Field(default_factory=list)
    defaults: dict[str, Any] = Field(default_factory=dict)
    steps: list[Step] = Field(min_length=1)
