"""Key names: one canonical spelling (xdotool keysyms, as Anthropic agents write them) and
translations to Playwright and to OpenAI's keypress lists.

Agents spell keys many ways (``Return``, ``enter``, ``ENTER``, ``KP_Enter``; ``cmd``, ``super``,
``Meta``). Every spelling maps to one canonical name, so a trajectory stores ``ctrl+a`` whatever the
agent sent, and the executor asks :func:`to_playwright` for what to press.

A *combo* is keys joined by ``+`` and pressed together (``ctrl+shift+t``); a *sequence* is combos
separated by spaces and pressed one after another (``ctrl+a BackSpace``), as xdotool accepts.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

from .errors import ActionError

# Canonical modifier names and the Playwright key each one holds.
MODIFIERS: dict[str, str] = {"ctrl": "Control", "shift": "Shift", "alt": "Alt", "super": "Meta"}

# Canonical named keys (xdotool keysyms) -> Playwright key names.
NAMED_KEYS: dict[str, str] = {
    **MODIFIERS,
    "Return": "Enter",
    "Tab": "Tab",
    "Escape": "Escape",
    "BackSpace": "Backspace",
    "Delete": "Delete",
    "Insert": "Insert",
    "Home": "Home",
    "End": "End",
    "Page_Up": "PageUp",
    "Page_Down": "PageDown",
    "Up": "ArrowUp",
    "Down": "ArrowDown",
    "Left": "ArrowLeft",
    "Right": "ArrowRight",
    "space": "Space",
    "Caps_Lock": "CapsLock",
    "Num_Lock": "NumLock",
    "Scroll_Lock": "ScrollLock",
    "Print": "PrintScreen",
    "Pause": "Pause",
    "Menu": "ContextMenu",
    **{f"F{i}": f"F{i}" for i in range(1, 13)},  # F13-F24: Playwright's keyboard has no such keys
}
MAX_COMBO_KEYS = 6  # keys held together in one combo (four modifiers and two keys)

# xdotool keysym names of printable characters. Canonical form uses the name (``minus``), because
# ``ctrl+-`` and ``ctrl++`` are ambiguous to split and xdotool rejects bare punctuation.
CHAR_KEYS: dict[str, str] = {
    "minus": "-", "plus": "+", "equal": "=", "comma": ",", "period": ".", "slash": "/",
    "backslash": "\\", "semicolon": ";", "colon": ":", "apostrophe": "'", "quotedbl": '"',
    "grave": "`", "asciitilde": "~", "exclam": "!", "at": "@", "numbersign": "#", "dollar": "$",
    "percent": "%", "asciicircum": "^", "ampersand": "&", "asterisk": "*", "parenleft": "(",
    "parenright": ")", "underscore": "_", "bracketleft": "[", "bracketright": "]",
    "braceleft": "{", "braceright": "}", "bar": "|", "less": "<", "greater": ">", "question": "?",
}
_CHAR_TO_NAME = {char: name for name, char in CHAR_KEYS.items()}

# Other spellings (lower-cased) -> canonical name: Playwright, OpenAI, macOS and X11 variants.
_EXTRA_ALIASES: dict[str, str] = {
    "control": "ctrl", "ctl": "ctrl", "control_l": "ctrl", "control_r": "ctrl", "ctrl_l": "ctrl",
    "ctrl_r": "ctrl", "controlormeta": "ctrl", "shift_l": "shift", "shift_r": "shift",
    "alt_l": "alt", "alt_r": "alt", "option": "alt", "opt": "alt",
    "cmd": "super", "command": "super", "meta": "super", "meta_l": "super", "meta_r": "super",
    "super_l": "super", "super_r": "super", "win": "super", "windows": "super", "os": "super",
    "enter": "Return", "kp_enter": "Return", "ret": "Return",
    "esc": "Escape", "backspace": "BackSpace", "back_space": "BackSpace", "del": "Delete",
    "kp_delete": "Delete", "ins": "Insert", "kp_insert": "Insert", "kp_home": "Home", "kp_end": "End",
    "pageup": "Page_Up", "pgup": "Page_Up", "prior": "Page_Up", "kp_prior": "Page_Up", "kp_page_up": "Page_Up",
    "pagedown": "Page_Down", "pgdn": "Page_Down", "next": "Page_Down", "kp_next": "Page_Down",
    "kp_page_down": "Page_Down",
    "arrowup": "Up", "kp_up": "Up", "arrowdown": "Down", "kp_down": "Down",
    "arrowleft": "Left", "kp_left": "Left", "arrowright": "Right", "kp_right": "Right",
    "kp_space": "space", "capslock": "Caps_Lock", "numlock": "Num_Lock", "scrolllock": "Scroll_Lock",
    "printscreen": "Print", "contextmenu": "Menu", "kp_tab": "Tab",
    "kp_add": "plus", "kp_subtract": "minus", "kp_multiply": "asterisk", "kp_divide": "slash",
    "kp_decimal": "period", "kp_equal": "equal", "hyphen": "minus", "dash": "minus",
    "divide": "slash", "quote": "apostrophe", "backquote": "grave", "backtick": "grave",
    **{f"kp_{d}": str(d) for d in range(10)},
    **{f"digit{d}": str(d) for d in range(10)},
    **{f"key{c}": c for c in "abcdefghijklmnopqrstuvwxyz"},
}

_ALIASES: dict[str, str] = {
    **{name.lower(): name for name in NAMED_KEYS},
    **{name: name for name in CHAR_KEYS},
    **_EXTRA_ALIASES,
}

# OpenAI computer-use agents write keys upper-case; these differ from the upper-cased Playwright name.
_OPENAI_NAMES = {"ctrl": "CTRL", "super": "CMD", "Escape": "ESC", "space": "SPACE"}

_EXAMPLES = "Return, Tab, Escape, BackSpace, Delete, Page_Down, Up, F1-F12, space, minus, ctrl, shift, alt, super"


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _unknown(token: str, context: str) -> ActionError:
    close = difflib.get_close_matches(token.lower(), list(_ALIASES), n=3, cutoff=0.7) if len(token) < 40 else []
    names = list(dict.fromkeys(_ALIASES[c] for c in close))
    hint = f" Did you mean {' or '.join(repr(n) for n in names)}?" if names else ""
    where = f" in {_clip(context)!r}" if context and context != token else ""
    return ActionError(
        f"unknown key {_clip(token)!r}{where}.{hint} Use xdotool key names ({_EXAMPLES}), "
        "or a single character such as 'a'; join keys pressed together with '+', e.g. 'ctrl+a'."
    )


def normalize_key(name: str, *, context: str = "") -> str:
    """One key name in any known spelling -> its canonical (xdotool) name; single characters stay."""
    if not isinstance(name, str):
        raise ActionError(f"a key name must be a string, got {type(name).__name__} {name!r}")
    if name == " ":
        return "space"
    token = name.strip()
    if not token:
        raise ActionError(
            f"empty key name in {context!r}; write keys such as 'Return' or combos such as 'ctrl+a'"
            if context
            else "the key is empty; send a key name such as 'Return' or a combo such as 'ctrl+a'"
        )
    if len(token) == 1:
        # Playwright presses one UTF-16 unit: characters beyond the BMP (emoji) cannot be a key.
        if not token.isprintable() or ord(token) > 0xFFFF:
            raise _unknown(token, context)
        return _CHAR_TO_NAME.get(token, token)
    canonical = _ALIASES.get(token.lower())
    if canonical is None:
        raise _unknown(token, context)
    return canonical


def _split_combo(combo: str) -> list[str]:
    # Like Playwright: '+' separates keys unless it is the key itself ('ctrl++', '+').
    parts: list[str] = []
    building = ""
    for char in combo:
        if char == "+" and building:
            parts.append(building)
            building = ""
        else:
            building += char
    parts.append(building)
    return parts


def parse_combo(combo: str) -> list[str]:
    """``'CTRL+Shift+t'`` -> ``['ctrl', 'shift', 't']`` (canonical names, in the given order)."""
    if not isinstance(combo, str):
        raise ActionError(f"a key combo must be a string, got {type(combo).__name__} {combo!r}")
    if not combo.strip():
        raise ActionError("the key is empty; send a key name such as 'Return' or a combo such as 'ctrl+a'")
    parts = _split_combo(combo.strip())
    if len(parts) > MAX_COMBO_KEYS:
        raise ActionError(f"key combo {_clip(combo)!r} holds {len(parts)} keys together; the limit is {MAX_COMBO_KEYS}")
    names = [normalize_key(part, context=combo) for part in parts]
    if len(set(names)) != len(names):
        raise ActionError(f"key combo {combo!r} names the same key twice")
    return names


def parse_keys(keys: str) -> list[list[str]]:
    """A sequence of combos separated by spaces -> one list of canonical names per combo."""
    if not isinstance(keys, str):
        raise ActionError(f"keys must be a string such as 'ctrl+a', got {type(keys).__name__} {keys!r}")
    if keys == " ":
        return [["space"]]
    tidy = re.sub(r"(?<=\S)\s*\+\s*(?=\S)", "+", keys.strip())  # 'ctrl + a' -> 'ctrl+a'
    if not tidy:
        raise ActionError("the key is empty; send a key name such as 'Return' or a combo such as 'ctrl+a'")
    return [parse_combo(combo) for combo in tidy.split()]


def normalize_keys(keys: str) -> str:
    """Any spelling of a combo or sequence -> canonical text, e.g. ``'CONTROL+A  enter'`` -> ``'ctrl+a Return'``."""
    return " ".join("+".join(combo) for combo in parse_keys(keys))


def to_playwright_key(name: str) -> str:
    """One key -> the name ``page.keyboard.press`` expects (``Page_Down`` -> ``PageDown``)."""
    canonical = normalize_key(name)
    return NAMED_KEYS.get(canonical) or CHAR_KEYS.get(canonical) or canonical


def to_playwright(keys: str) -> list[str]:
    """A combo or sequence -> one Playwright combo per step: ``'ctrl+a Delete'`` -> ``['Control+a', 'Delete']``."""
    return ["+".join(to_playwright_key(k) for k in combo) for combo in parse_keys(keys)]


def is_modifier(name: str) -> bool:
    return normalize_key(name) in MODIFIERS


def normalize_modifiers(modifiers: Iterable[str]) -> tuple[str, ...]:
    """Held keys for a click/scroll/drag -> canonical modifier names, duplicates dropped."""
    if isinstance(modifiers, str):
        raise ActionError(f"modifiers must be a list of key names such as ['shift'], got the string {modifiers!r}")
    out: list[str] = []
    for raw in modifiers:
        names = parse_combo(raw) if isinstance(raw, str) and len(raw) > 1 else [normalize_key(raw)]
        for name in names:
            if name not in MODIFIERS:
                raise ActionError(
                    f"{raw!r} is not a modifier key; modifiers held during a click or scroll "
                    f"must be among {', '.join(MODIFIERS)}"
                )
            if name not in out:
                out.append(name)
    return tuple(out)


def modifiers_to_playwright(modifiers: Iterable[str]) -> list[str]:
    """Canonical modifiers -> Playwright names (``['ctrl']`` -> ``['Control']``), e.g. for ``locator.click``."""
    return [MODIFIERS[m] for m in normalize_modifiers(modifiers)]


def from_openai_keys(keys: Sequence[str]) -> str:
    """OpenAI ``keypress.keys`` (``['CTRL', 'A']``) -> canonical combo (``'ctrl+a'``).

    OpenAI agents upper-case every key, so a lone letter means the key, not Shift+letter.
    """
    if isinstance(keys, str) or not isinstance(keys, Sequence) or not keys:
        raise ActionError(f"keys must be a non-empty list of key names such as ['CTRL', 'A'], got {keys!r}")
    names: list[str] = []
    for key in keys:
        if not isinstance(key, str):
            raise ActionError(f"each key must be a string, got {type(key).__name__} {key!r}")
        token = key.lower() if len(key) == 1 and key.isalpha() else key
        # A multi-key string inside the list ('ctrl+c') is accepted as its own combo.
        parts = [token] if len(token) == 1 else _split_combo(token)
        names.extend(normalize_key(p, context="+".join(keys)) for p in parts)
    if len(set(names)) != len(names):
        raise ActionError(f"keys {list(keys)!r} name the same key twice")
    return "+".join(names)


def to_openai_keys(combo: str) -> list[str]:
    """Canonical combo -> OpenAI keypress list (``'ctrl+a'`` -> ``['CTRL', 'A']``); one combo only."""
    combos = parse_keys(combo)
    if len(combos) != 1:
        raise ActionError(f"{combo!r} is a sequence of {len(combos)} combos; OpenAI keypress takes one combo")
    out: list[str] = []
    for name in combos[0]:
        if len(name) == 1 and name.isalpha():
            if name.isupper() and "shift" not in combos[0]:
                out.insert(0, "SHIFT")  # OpenAI letters are case-less: 'A' alone means the a key
            out.append(name.upper())
        elif name in _OPENAI_NAMES:
            out.append(_OPENAI_NAMES[name])
        elif name in CHAR_KEYS:
            out.append(CHAR_KEYS[name])
        elif name in NAMED_KEYS:
            out.append(NAMED_KEYS[name].upper())
        else:
            out.append(name)
    return out
