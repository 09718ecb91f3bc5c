"""The canonical action model: one pydantic class per action, a union discriminated on ``action``.

Names follow Anthropic's computer-use vocabulary; browser, element-level and episode-control actions
are additions. Coordinates are integer pixels of the screenshot the agent saw (see :func:`scale_action`
to map them to the viewport). Every model is frozen and forbids unknown fields, so a typo in an
argument is an error, never a silently ignored value.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    field_validator,
    model_validator,
)

from . import keys as _keys
from . import urls as _urls
from .errors import ActionError

SCROLL_PIXELS_PER_CLICK = 100  # one wheel click, as xdotool and Anthropic's scroll_amount count it
DEFAULT_WAIT_SECONDS = 1.0
MODIFIER_NAMES = tuple(_keys.MODIFIERS)

# Sane bounds of one action. Each keeps a step short (well inside the env's step budget, 30 s by
# default) and is named in the error an agent gets when it asks for more; see ``LIMITS``.
MAX_COORDINATE = 9999  # pixels; the env also checks the real screen size
MAX_SCROLL_AMOUNT = 100  # wheel clicks (10,000 px); huge wheel deltas wedge Chromium's input handling
MAX_WAIT_SECONDS = 20.0  # wait and hold_key
MAX_KEY_REPEAT = 100
MAX_KEY_PRESSES = 100  # a key action's combos times its repeat (about 30 ms a press)
MAX_TYPE_CHARS = 2000  # type sends key events per character (5-10 ms each)
MAX_DRAG_POINTS = 20  # waypoints of a left_click_drag path
MAX_TEXT_CHARS = 65536  # fill_element text, answer, report_infeasible, option values
MAX_URL_CHARS = 8192
MAX_ELEMENT_ID_CHARS = 64
MAX_OPTIONS = 100  # options chosen by one select_option
MAX_TOOL_NAME_CHARS = 64
DEFAULT_ACTION_SECONDS = 30.0  # an action still running after this is cut (the env's budget may differ)

LIMITS: dict[str, str] = {
    "coordinates": f"0-{MAX_COORDINATE} and inside the screen",
    "scroll amount": f"1-{MAX_SCROLL_AMOUNT} wheel clicks ({MAX_SCROLL_AMOUNT * SCROLL_PIXELS_PER_CLICK} px)",
    "type text": f"at most {MAX_TYPE_CHARS} characters (split longer text, or use fill_element)",
    "key": f"at most {MAX_KEY_PRESSES} presses (combos in the sequence times repeat), repeat 1-{MAX_KEY_REPEAT}",
    "drag path": f"at most {MAX_DRAG_POINTS} waypoints",
    "wait and hold_key": f"0-{MAX_WAIT_SECONDS:g} seconds",
    "other text": f"at most {MAX_TEXT_CHARS} characters; urls at most {MAX_URL_CHARS}",
    "time": f"an action still running after the environment's step budget ({DEFAULT_ACTION_SECONDS:g} s by default) is cut",
}


def _at_most(limit: int, what: str, hint: str = "", unit: str = "characters") -> Any:
    def check(value: Any) -> Any:
        if len(value) > limit:
            raise ActionError(f"{what} has {len(value)} {unit}; the limit is {limit}{hint}")
        return value

    return AfterValidator(check)


Coord = Annotated[int, Field(strict=True, ge=0, le=MAX_COORDINATE)]
Seconds = Annotated[float, Field(strict=True, ge=0, le=MAX_WAIT_SECONDS, allow_inf_nan=False)]
Text = Annotated[str, StringConstraints(strict=True, min_length=1), _at_most(MAX_TEXT_CHARS, "the text")]
ElementId = Annotated[
    str, StringConstraints(strict=True, strip_whitespace=True, min_length=1), _at_most(MAX_ELEMENT_ID_CHARS, "element_id")
]
Button = Literal["left", "right", "middle"]



def _modifiers(value: Any) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise ActionError(f"must be a list of key names such as ['shift'], got {value!r}")
    return _keys.normalize_modifiers(value)


# Keys held down during a click, scroll, move or drag, e.g. ["shift"] or ["ctrl", "alt"].
Modifiers = Annotated[
    tuple[str, ...],
    BeforeValidator(_modifiers),
    Field(description=f"keys held during the action, among {', '.join(MODIFIER_NAMES)}"),
]


class Point(BaseModel):
    """A screenshot pixel."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    x: Coord
    y: Coord


class BaseAction(BaseModel):
    """Common base of every action class; ``examples`` feed the docs, the prompts and the tests."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    action: str
    examples: ClassVar[tuple[dict[str, Any], ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        """Compact JSON-ready form: ``action`` plus the arguments that differ from their defaults."""
        return {"action": self.action, **self.model_dump(mode="json", exclude_defaults=True)}


class _OptionalPoint(BaseAction):
    x: Coord | None = Field(default=None, description="screenshot pixel column; omit with y for the mouse position")
    y: Coord | None = Field(default=None, description="screenshot pixel row; omit with x for the mouse position")

    @model_validator(mode="after")
    def _both_or_neither(self) -> _OptionalPoint:
        if (self.x is None) != (self.y is None):
            raise ActionError("give both x and y, or neither to act at the current mouse position")
        return self


class _Click(_OptionalPoint):
    modifiers: Modifiers = ()


class LeftClick(_Click):
    """Click the left mouse button at (x, y), or where the mouse is."""

    action: Literal["left_click"] = "left_click"
    examples = ({"action": "left_click", "x": 640, "y": 360}, {"action": "left_click", "x": 96, "y": 410, "modifiers": ["ctrl"]})


class RightClick(_Click):
    """Click the right mouse button (opens context menus)."""

    action: Literal["right_click"] = "right_click"
    examples = ({"action": "right_click", "x": 640, "y": 360},)


class MiddleClick(_Click):
    """Click the middle mouse button (opens links in a new tab)."""

    action: Literal["middle_click"] = "middle_click"
    examples = ({"action": "middle_click", "x": 640, "y": 360},)


class DoubleClick(_Click):
    """Double-click the left mouse button (selects a word)."""

    action: Literal["double_click"] = "double_click"
    examples = ({"action": "double_click", "x": 640, "y": 360},)


class TripleClick(_Click):
    """Triple-click the left mouse button (selects a line or a field's whole text)."""

    action: Literal["triple_click"] = "triple_click"
    examples = ({"action": "triple_click", "x": 640, "y": 360},)


class MouseMove(BaseAction):
    """Move the mouse to (x, y) without clicking (reveals hover menus and tooltips)."""

    action: Literal["mouse_move"] = "mouse_move"
    x: Coord
    y: Coord
    modifiers: Modifiers = ()
    examples = ({"action": "mouse_move", "x": 500, "y": 120},)


class LeftClickDrag(BaseAction):
    """Press the left button at (start_x, start_y), move through the path waypoints if any, release at (end_x, end_y)."""

    action: Literal["left_click_drag"] = "left_click_drag"
    start_x: Coord
    start_y: Coord
    end_x: Coord
    end_y: Coord
    path: Annotated[tuple[Point, ...], _at_most(MAX_DRAG_POINTS, "path", "; split the drag in several", "waypoints")] = Field(
        default=(), description=f"waypoints between start and end, in order (at most {MAX_DRAG_POINTS})"
    )
    modifiers: Modifiers = ()
    examples = (
        {"action": "left_click_drag", "start_x": 100, "start_y": 200, "end_x": 400, "end_y": 200},
        {"action": "left_click_drag", "start_x": 10, "start_y": 10, "end_x": 90, "end_y": 90, "path": [{"x": 50, "y": 20}]},
    )


class LeftMouseDown(_OptionalPoint):
    """Press and hold the left mouse button (at (x, y) if given); pair with left_mouse_up."""

    action: Literal["left_mouse_down"] = "left_mouse_down"
    examples = ({"action": "left_mouse_down", "x": 100, "y": 200},)


class LeftMouseUp(_OptionalPoint):
    """Release the left mouse button (after moving to (x, y) if given)."""

    action: Literal["left_mouse_up"] = "left_mouse_up"
    examples = ({"action": "left_mouse_up", "x": 400, "y": 200},)


class Scroll(_OptionalPoint):
    action: Literal["scroll"] = "scroll"
    direction: Literal["up", "down", "left", "right"]
    amount: int = Field(
        strict=True, ge=1, le=MAX_SCROLL_AMOUNT, description=f"wheel clicks of {SCROLL_PIXELS_PER_CLICK} px (at most {MAX_SCROLL_AMOUNT})"
    )
    modifiers: Modifiers = ()
    examples = ({"action": "scroll", "x": 640, "y": 400, "direction": "down", "amount": 5},)


Scroll.__doc__ = (  # built from the constant so the prompt text cannot drift from it
    f"Turn the mouse wheel amount clicks ({SCROLL_PIXELS_PER_CLICK} px each) at (x, y), or where the mouse is."
)


class Type(BaseAction):
    """Type text with the keyboard into the focused element."""

    action: Literal["type"] = "type"
    text: Annotated[
        str,
        StringConstraints(strict=True, min_length=1),
        _at_most(MAX_TYPE_CHARS, "the text to type", "; send longer text in several type actions, or use fill_element"),
    ] = Field(description=f"at most {MAX_TYPE_CHARS} characters")
    examples = ({"action": "type", "text": "Acme Corp"},)


class Key(BaseAction):
    """Press a key or combo (xdotool names, '+' joins keys held together, spaces separate steps)."""

    action: Literal["key"] = "key"
    key: str = Field(description="e.g. 'Return', 'ctrl+a', 'shift+Tab', 'ctrl+a BackSpace'")
    repeat: int = Field(default=1, strict=True, ge=1, le=MAX_KEY_REPEAT, description="times to press it")
    examples = ({"action": "key", "key": "ctrl+a"}, {"action": "key", "key": "Tab", "repeat": 3})

    @field_validator("key", mode="before")
    @classmethod
    def _key(cls, value: Any) -> str:
        if isinstance(value, str) and len(value) > 20 * MAX_KEY_PRESSES:
            raise ActionError(f"the key sequence has {len(value)} characters; it may press at most {MAX_KEY_PRESSES} keys")
        return _keys.normalize_keys(value)

    @model_validator(mode="after")
    def _presses(self) -> Key:
        presses = len(self.key.split(" ")) * self.repeat
        if presses > MAX_KEY_PRESSES:
            raise ActionError(
                f"this key action presses {presses} combos ({len(self.key.split(' '))} in the sequence x repeat {self.repeat}); "
                f"the limit is {MAX_KEY_PRESSES} presses per action"
            )
        return self


class HoldKey(BaseAction):
    """Hold a key or combo down for duration seconds, then release it."""

    action: Literal["hold_key"] = "hold_key"
    key: str = Field(description="one key or combo, e.g. 'shift'")
    duration: Seconds = Field(description=f"seconds, at most {MAX_WAIT_SECONDS:g}")
    examples = ({"action": "hold_key", "key": "shift", "duration": 1.0},)

    @field_validator("key", mode="before")
    @classmethod
    def _key(cls, value: Any) -> str:
        combos = _keys.parse_keys(value)
        if len(combos) != 1:
            raise ActionError(f"hold_key holds one key or combo, not a sequence: {value!r}")
        return "+".join(combos[0])


class Wait(BaseAction):
    """Do nothing for duration seconds, then observe (for pages still loading)."""

    action: Literal["wait"] = "wait"
    duration: Seconds = Field(default=DEFAULT_WAIT_SECONDS, description=f"seconds, at most {MAX_WAIT_SECONDS:g}")
    examples = ({"action": "wait", "duration": 2},)


class Screenshot(BaseAction):
    """Take a fresh screenshot without acting."""

    action: Literal["screenshot"] = "screenshot"
    examples = ({"action": "screenshot"},)


class CursorPosition(BaseAction):
    """Report the mouse position in screenshot pixels."""

    action: Literal["cursor_position"] = "cursor_position"
    examples = ({"action": "cursor_position"},)


class Zoom(BaseAction):
    """Look at the region (x0, y0)-(x1, y1) of the screen at full resolution."""

    action: Literal["zoom"] = "zoom"
    x0: Coord
    y0: Coord
    x1: Coord
    y1: Coord
    examples = ({"action": "zoom", "x0": 0, "y0": 0, "x1": 640, "y1": 360},)

    @model_validator(mode="after")
    def _ordered(self) -> Zoom:
        if self.x1 <= self.x0 or self.y1 <= self.y0:
            raise ActionError(
                f"zoom region ({self.x0}, {self.y0})-({self.x1}, {self.y1}) is empty; "
                "x1 must be greater than x0 and y1 greater than y0 (top-left, then bottom-right)"
            )
        return self


class Goto(BaseAction):
    """Open a URL in the current tab (http(s), or a path relative to the current page)."""

    action: Literal["goto"] = "goto"
    url: Text
    examples = ({"action": "goto", "url": "http://crm.localhost/accounts"},)

    @field_validator("url")
    @classmethod
    def _url(cls, url: str) -> str:
        if len(url) > MAX_URL_CHARS:
            raise ActionError(f"the url has {len(url)} characters; the limit is {MAX_URL_CHARS}")
        url = _urls.preprocess(url)  # as the browser reads it: tabs and newlines removed, ends trimmed
        if not url or any(ch.isspace() for ch in url):
            raise ActionError(f"url must be one URL without spaces, got {url!r}")
        error = _urls.web_url_error(url)
        if error:
            raise ActionError(error)
        return url


class Back(BaseAction):
    """Go back one page in the tab's history."""

    action: Literal["back"] = "back"
    examples = ({"action": "back"},)


class Forward(BaseAction):
    """Go forward one page in the tab's history."""

    action: Literal["forward"] = "forward"
    examples = ({"action": "forward"},)


class _Element(BaseAction):
    element_id: ElementId = Field(description="id of the element in the accessibility tree / set-of-marks list")


class ClickElement(_Element):
    """Click an element by its id."""

    action: Literal["click_element"] = "click_element"
    button: Button = "left"
    count: int = Field(default=1, strict=True, ge=1, le=3, description="1 click, 2 double, 3 triple")
    modifiers: Modifiers = ()
    examples = ({"action": "click_element", "element_id": "a42"}, {"action": "click_element", "element_id": "17", "button": "right"})


class FillElement(_Element):
    """Replace the text of an input, textarea or editable element (empty text clears it)."""

    action: Literal["fill_element"] = "fill_element"
    text: Annotated[str, Field(strict=True), _at_most(MAX_TEXT_CHARS, "the text")]
    examples = ({"action": "fill_element", "element_id": "a42", "text": "Jane Doe"},)


OptionChoice = Union[Text, Annotated[tuple[Text, ...], _at_most(MAX_OPTIONS, "the list of options", unit="options")]]


class SelectOption(_Element):
    """Choose option(s) of a <select> element by value or by visible label (exactly one of the two)."""

    action: Literal["select_option"] = "select_option"
    value: OptionChoice | None = None
    label: OptionChoice | None = None
    examples = ({"action": "select_option", "element_id": "s7", "label": "Closed Won"},)

    @model_validator(mode="after")
    def _one_choice(self) -> SelectOption:
        if (self.value is None) == (self.label is None):
            raise ActionError("give exactly one of value (the option's value attribute) or label (its visible text)")
        for choice in (self.value, self.label):
            if isinstance(choice, tuple) and not choice:
                raise ActionError("the list of options is empty; give at least one option")
        return self


class HoverElement(_Element):
    """Move the mouse over an element (reveals hover menus and tooltips)."""

    action: Literal["hover_element"] = "hover_element"
    examples = ({"action": "hover_element", "element_id": "m3"},)


class FocusElement(_Element):
    """Give an element keyboard focus without clicking it."""

    action: Literal["focus_element"] = "focus_element"
    examples = ({"action": "focus_element", "element_id": "a42"},)


MAX_UPLOAD_FILES = 20
FileName = Annotated[str, StringConstraints(strict=True, min_length=1, max_length=255)]


class UploadFile(BaseAction):
    """Choose files in the file chooser the page has open (after a click on an upload button or a
    file field), by name among the episode's files (its downloads and the task's files, listed in
    ``info["files"]``); an empty list cancels the chooser."""

    action: Literal["upload_file"] = "upload_file"
    files: Annotated[list[FileName], Field(max_length=MAX_UPLOAD_FILES)]
    examples = ({"action": "upload_file", "files": ["Signed NDA.pdf"]},)

    @field_validator("files")
    @classmethod
    def _plain_names(cls, v: list[str]) -> list[str]:
        for name in v:
            if "/" in name or "\\" in name or name in (".", ".."):
                raise ValueError(f"{name!r} is not a file name: give the name only, as info['files'] lists it")
        return v


class Answer(BaseAction):
    """Finish the episode with a final answer for the user."""

    action: Literal["answer"] = "answer"
    text: Text
    examples = ({"action": "answer", "text": "The opportunity is now Closed Won."},)


class ToolCall(BaseAction):
    """Call one of the apps' tools by name (where the task allows tools); the result comes back in
    the observation's ``tool_result`` and in ``info["tool_result"]``."""

    action: Literal["tool_call"] = "tool_call"
    name: Annotated[str, Field(min_length=1, max_length=MAX_TOOL_NAME_CHARS)]
    arguments: dict[str, Any] = Field(default_factory=dict)
    examples = ({"action": "tool_call", "name": "crm_update_opportunity", "arguments": {"record_id": 40, "stage": "Closed Won"}},)

    @field_validator("arguments")
    @classmethod
    def _size(cls, v: dict[str, Any]) -> dict[str, Any]:
        if len(json.dumps(v, default=str)) > MAX_TEXT_CHARS:
            raise ValueError(f"the arguments take at most {MAX_TEXT_CHARS} characters as JSON")
        return v


class ReportInfeasible(BaseAction):
    """Finish the episode saying the task cannot be done, and why."""

    action: Literal["report_infeasible"] = "report_infeasible"
    reason: Text
    examples = ({"action": "report_infeasible", "reason": "There is no account named Initech."},)


_CLASSES: tuple[type[BaseAction], ...] = (
    LeftClick, RightClick, MiddleClick, DoubleClick, TripleClick, MouseMove, LeftClickDrag,
    LeftMouseDown, LeftMouseUp, Scroll, Type, Key, HoldKey, Wait, Screenshot, CursorPosition, Zoom,
    Goto, Back, Forward, ClickElement, FillElement, SelectOption, HoverElement, FocusElement,
    UploadFile, Answer, ReportInfeasible, ToolCall,
)  # fmt: skip

Action = Annotated[Union[_CLASSES], Field(discriminator="action")]  # type: ignore[valid-type]
ACTION_TYPES: dict[str, type[BaseAction]] = {cls.model_fields["action"].default: cls for cls in _CLASSES}
ELEMENT_ACTIONS = frozenset(name for name, cls in ACTION_TYPES.items() if issubclass(cls, _Element))
_ADAPTER: TypeAdapter[Any] = TypeAdapter(Action)


def action_json_schema() -> dict[str, Any]:
    """JSON Schema of the whole union (for tool definitions, OpenEnv ``/schema``, MCP)."""
    return _ADAPTER.json_schema()
