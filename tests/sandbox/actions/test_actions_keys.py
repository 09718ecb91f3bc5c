"""Key names: every dialect agents use maps to one canonical spelling and to Playwright's."""

import pytest

from sandbox.actions import ActionError
from sandbox.actions.keys import (
    from_openai_keys,
    modifiers_to_playwright,
    normalize_keys,
    to_openai_keys,
    to_playwright,
)


@pytest.mark.parametrize(
    ("given", "canonical", "playwright"),
    [
        ("ctrl+a", "ctrl+a", ["Control+a"]),
        ("Return", "Return", ["Enter"]),
        ("KP_Enter", "Return", ["Enter"]),
        ("super", "super", ["Meta"]),
        ("cmd+c", "super+c", ["Meta+c"]),
        ("Page_Down", "Page_Down", ["PageDown"]),
        ("BackSpace", "BackSpace", ["Backspace"]),
        ("Escape", "Escape", ["Escape"]),
        ("F5", "F5", ["F5"]),
        ("ctrl+shift+t", "ctrl+shift+t", ["Control+Shift+t"]),
        ("shift+Tab", "shift+Tab", ["Shift+Tab"]),
        ("a", "a", ["a"]),
        ("A", "A", ["A"]),
        ("space", "space", ["Space"]),
        ("minus", "minus", ["-"]),
        ("ctrl+plus", "ctrl+plus", ["Control++"]),
        ("ctrl++", "ctrl+plus", ["Control++"]),
        ("ctrl+-", "ctrl+minus", ["Control+-"]),
        ("alt+Left", "alt+Left", ["Alt+ArrowLeft"]),
        ("Up", "Up", ["ArrowUp"]),
        ("KP_0", "0", ["0"]),
        ("ctrl + a", "ctrl+a", ["Control+a"]),
        ("ctrl+a BackSpace", "ctrl+a BackSpace", ["Control+a", "Backspace"]),
        # Playwright and BrowserGym spellings are accepted too.
        ("Control+a", "ctrl+a", ["Control+a"]),
        ("Meta+Shift+t", "super+shift+t", ["Meta+Shift+t"]),
        ("ArrowDown", "Down", ["ArrowDown"]),
        ("PageUp", "Page_Up", ["PageUp"]),
        ("ControlOrMeta+s", "ctrl+s", ["Control+s"]),
        ("ENTER", "Return", ["Enter"]),
        ("esc", "Escape", ["Escape"]),
    ],
)
def test_xdotool_and_playwright_names(given, canonical, playwright):
    assert normalize_keys(given) == canonical
    assert to_playwright(given) == playwright
    assert normalize_keys(canonical) == canonical  # canonical form is a fixed point


@pytest.mark.parametrize(
    ("keys", "canonical"),
    [
        (["CTRL", "A"], "ctrl+a"),
        (["ENTER"], "Return"),
        (["ARROWLEFT"], "Left"),
        (["ESC"], "Escape"),
        (["SPACE"], "space"),
        (["CMD", "C"], "super+c"),
        (["SHIFT", "TAB"], "shift+Tab"),
        (["BACKSPACE"], "BackSpace"),
        (["PAGEDOWN"], "Page_Down"),
        (["ALT", "F4"], "alt+F4"),
        (["/"], "slash"),
        (["ctrl+c"], "ctrl+c"),
    ],
)
def test_openai_keypress_lists(keys, canonical):
    assert from_openai_keys(keys) == canonical


def test_to_openai_keys_round_trips():
    for combo in ["ctrl+a", "Return", "Left", "Escape", "space", "super+c", "shift+Tab", "Page_Down", "F5"]:
        assert from_openai_keys(to_openai_keys(combo)) == combo
    assert to_openai_keys("ctrl+a") == ["CTRL", "A"]
    assert to_openai_keys("A") == ["SHIFT", "A"]  # OpenAI letters are case-less


def test_modifiers_to_playwright():
    assert modifiers_to_playwright(["ctrl", "SHIFT", "cmd"]) == ["Control", "Shift", "Meta"]


@pytest.mark.parametrize(
    ("bad", "needle"),
    [
        ("Retrun", "did you mean 'return'"),
        ("Enterr", "unknown key 'enterr'"),
        ("ctrl+Escpe", "did you mean 'escape'"),
        ("", "empty"),
        ("   ", "empty"),
        ("ctrl+", "empty key name"),
        ("ctrl+ctrl", "same key twice"),
        ("hyper_x", "unknown key"),
    ],
)
def test_unknown_or_empty_keys_are_explained(bad, needle):
    with pytest.raises(ActionError) as err:
        normalize_keys(bad)
    assert needle in str(err.value).lower()


def test_openai_keys_must_be_a_list_of_strings():
    for bad in ([], "CTRL", [1], ["CTRL", "CTRL"], ["NOPE"]):
        with pytest.raises(ActionError):
            from_openai_keys(bad)
