"""Prompt descriptions: generated from the models, so every example they show must parse back."""

import json
import re

import pytest

from sandbox.actions import (
    ACTION_TYPES,
    ELEMENT_ACTIONS,
    ActionError,
    describe_action_space,
    from_anthropic,
    from_anthropic_tool,
    from_browsergym,
    from_openai,
    parse_action,
    signature,
)
from sandbox.actions.browsergym import SUPPORTED

STYLES = ["canonical", "anthropic", "openai", "browsergym"]


def listed(text):
    return re.findall(r"^- (\w+)", text, flags=re.MULTILINE)


def examples(text):
    return re.findall(r"^  e\.g\. (.+)$", text, flags=re.MULTILINE)


def test_canonical_lists_every_action_with_signature_and_example():
    assert listed(describe_action_space()) == [a for a in ACTION_TYPES if a != "tool_call"]
    text = describe_action_space(tools=True)
    assert listed(text) == list(ACTION_TYPES)
    for name in ACTION_TYPES:
        assert signature(name) in text
    parsed = [parse_action(e) for e in examples(text)]
    assert [a.action for a in parsed] == list(ACTION_TYPES)
    assert "100 px" in text  # the scroll unit comes from the constant


def test_without_elements():
    for style in STYLES:
        text = describe_action_space(style, elements=False)
        names = listed(text)
        assert not set(names) & ELEMENT_ACTIONS
        assert "answer" in names or "send_msg_to_user" in names


@pytest.mark.parametrize("style", ["anthropic", "openai"])
def test_provider_styles_cover_every_action_and_parse_back(style):
    text = describe_action_space(style)
    assert sorted(listed(text)) == sorted(a for a in ACTION_TYPES if a != "tool_call")  # app tools go by their own names
    seen = []
    for line in examples(text):
        if line.startswith("{"):  # a computer-tool action
            payload = json.loads(line)
            actions = from_anthropic(payload) if style == "anthropic" else from_openai(payload)
            actions = actions if isinstance(actions, list) else [actions]
        else:  # an extra tool: "name {json arguments}"
            name, args = line.split(" ", 1)
            if style == "anthropic":
                actions = [from_anthropic_tool(name, json.loads(args))]
            else:
                actions = from_openai({"type": "function_call", "name": name, "arguments": args})
        seen.extend(a.action for a in actions)
    assert sorted(seen) == sorted(a for a in ACTION_TYPES if a != "tool_call")


def test_browsergym_lists_every_supported_function():
    text = describe_action_space("browsergym")
    assert listed(text) == list(SUPPORTED)
    for line in examples(text):
        assert from_browsergym(line)


def test_unknown_style():
    with pytest.raises(ActionError, match="unknown style"):
        describe_action_space("gemini")  # type: ignore[arg-type]


@pytest.mark.parametrize("style", ["canonical", "anthropic", "openai", "browsergym"])
def test_every_style_states_the_limits(style):
    from sandbox.actions import LIMITS, MAX_SCROLL_AMOUNT, MAX_TYPE_CHARS

    text = describe_action_space(style)
    for bound in LIMITS.values():
        assert bound in text
    assert f"{MAX_TYPE_CHARS} characters" in text and f"1-{MAX_SCROLL_AMOUNT} wheel clicks" in text
