"""Raw input events: what the studio page (or the headed capture script) reports of a person's input.

Coordinates are viewport pixels of the sandboxed page, so they are the screenshot's pixels too.
``mods`` are the modifier keys held, canonical names (``shift``, ``ctrl``, ``alt``, ``super``).
``t`` is the sender's clock in milliseconds (``performance.now()``), kept for timings only.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

Mod = Literal["shift", "ctrl", "alt", "super"]
ButtonName = Literal["left", "right", "middle"]
Px = Annotated[int, Field(ge=0, le=20000)]


class _Input(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    t: float = 0.0


class MouseDown(_Input):
    """A button pressed; ``count`` is the browser's click count (2 for the second press of a double click)."""

    type: Literal["down"] = "down"
    x: Px
    y: Px
    button: ButtonName = "left"
    count: int = Field(1, ge=1, le=3)
    mods: tuple[Mod, ...] = ()


class MouseUp(_Input):
    type: Literal["up"] = "up"
    x: Px
    y: Px
    button: ButtonName = "left"
    mods: tuple[Mod, ...] = ()


class MouseMove(_Input):
    """The pointer moved (forwarded so hover effects show; recorded only as part of a drag or a rest)."""

    type: Literal["move"] = "move"
    x: Px
    y: Px


class MouseRest(_Input):
    """The pointer stopped moving for a moment at (x, y): a candidate ``mouse_move`` step (a hover)."""

    type: Literal["rest"] = "rest"
    x: Px
    y: Px


class Wheel(_Input):
    """Wheel clicks at (x, y), already whole (the sender accumulates pixel deltas into 100 px clicks)."""

    type: Literal["wheel"] = "wheel"
    x: Px
    y: Px
    direction: Literal["up", "down", "left", "right"]
    clicks: int = Field(1, ge=1, le=50)
    mods: tuple[Mod, ...] = ()


class KeyPress(_Input):
    """A key went down. ``key`` is ``KeyboardEvent.key`` ('a', 'A', 'Enter', 'ArrowUp'), ``code`` its
    physical key ('KeyA'), used for combos whose ``key`` is changed by the modifiers."""

    type: Literal["key"] = "key"
    key: str = Field(min_length=1, max_length=32)
    code: str = Field("", max_length=32)
    mods: tuple[Mod, ...] = ()


class Paste(_Input):
    """Text pasted from the person's clipboard: recorded as typing."""

    type: Literal["paste"] = "paste"
    text: str = Field(min_length=1, max_length=10000)


RawInput = Annotated[Union[MouseDown, MouseUp, MouseMove, MouseRest, Wheel, KeyPress, Paste], Field(discriminator="type")]
_ADAPTER: TypeAdapter = TypeAdapter(RawInput)


def parse_input(data: dict) -> RawInput:
    """Validate one raw input event (raises pydantic's ValidationError)."""
    return _ADAPTER.validate_python(data)


__all__ = ["KeyPress", "MouseDown", "MouseMove", "MouseRest", "MouseUp", "Paste", "RawInput", "Wheel", "parse_input"]
