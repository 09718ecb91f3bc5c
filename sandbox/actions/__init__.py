"""Actions: the canonical typed action model and adapters from/to agent dialects.

``parse_action`` turns a dict or JSON into a validated action; ``from_anthropic``, ``from_openai``
and ``from_browsergym`` read what those agents send; ``describe_action_space`` writes the prompt
text; ``keys.to_playwright`` tells the executor what to press.
"""

from . import keys
from .anthropic import ANTHROPIC_ACTIONS, from_anthropic, from_anthropic_tool, to_anthropic, to_anthropic_tool
from .browsergym import from_browsergym
from .describe import describe_action_space
from .errors import ActionError
from .model import (
    ACTION_TYPES,
    DEFAULT_WAIT_SECONDS,
    ELEMENT_ACTIONS,
    LIMITS,
    MAX_COORDINATE,
    MAX_DRAG_POINTS,
    MAX_KEY_PRESSES,
    MAX_KEY_REPEAT,
    MAX_SCROLL_AMOUNT,
    MAX_TEXT_CHARS,
    MAX_TYPE_CHARS,
    MAX_URL_CHARS,
    MAX_WAIT_SECONDS,
    SCROLL_PIXELS_PER_CLICK,
    Action,
    Answer,
    Back,
    BaseAction,
    ClickElement,
    CursorPosition,
    DoubleClick,
    FillElement,
    FocusElement,
    Forward,
    Goto,
    HoldKey,
    HoverElement,
    Key,
    LeftClick,
    LeftClickDrag,
    LeftMouseDown,
    LeftMouseUp,
    MiddleClick,
    MouseMove,
    Point,
    ReportInfeasible,
    ToolCall,
    RightClick,
    Screenshot,
    Scroll,
    SelectOption,
    TripleClick,
    Type,
    UploadFile,
    Wait,
    Zoom,
    action_json_schema,
)
from .parse import build, parse_action, signature
from .scale import check_on_screen, off_screen, scale_action
from .urls import AppUrls
from .openai import OPENAI_ACTIONS, from_openai, to_openai, to_openai_function_call

__all__ = [
    "ACTION_TYPES", "ANTHROPIC_ACTIONS", "DEFAULT_WAIT_SECONDS", "ELEMENT_ACTIONS", "LIMITS",
    "MAX_COORDINATE", "MAX_DRAG_POINTS", "MAX_KEY_PRESSES", "MAX_KEY_REPEAT", "MAX_SCROLL_AMOUNT",
    "MAX_TEXT_CHARS", "MAX_TYPE_CHARS", "MAX_URL_CHARS", "MAX_WAIT_SECONDS", "OPENAI_ACTIONS",
    "SCROLL_PIXELS_PER_CLICK", "AppUrls", "check_on_screen", "off_screen",
    "Action", "ActionError", "Answer", "Back", "BaseAction", "ClickElement", "CursorPosition",
    "DoubleClick", "FillElement", "FocusElement", "Forward", "Goto", "HoldKey", "HoverElement", "Key",
    "LeftClick", "LeftClickDrag", "LeftMouseDown", "LeftMouseUp", "MiddleClick", "MouseMove", "Point",
    "ReportInfeasible", "RightClick", "ToolCall", "Screenshot", "Scroll", "SelectOption", "TripleClick", "Type",
    "UploadFile", "Wait", "Zoom",
    "action_json_schema", "build", "describe_action_space", "from_anthropic", "from_anthropic_tool",
    "from_browsergym", "from_openai", "keys", "parse_action", "scale_action", "signature",
    "to_anthropic", "to_anthropic_tool", "to_openai", "to_openai_function_call",
]  # fmt: skip
