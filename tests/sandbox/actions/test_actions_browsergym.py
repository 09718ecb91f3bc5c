"""BrowserGym action strings, as BrowserGym agents write them; parsed with ast, never evaluated."""

import pytest

from sandbox.actions import (
    ActionError,
    Answer,
    Back,
    ClickElement,
    DoubleClick,
    FillElement,
    FocusElement,
    Forward,
    Goto,
    HoverElement,
    Key,
    LeftClick,
    LeftClickDrag,
    LeftMouseDown,
    LeftMouseUp,
    MiddleClick,
    MouseMove,
    ReportInfeasible,
    RightClick,
    Scroll,
    SelectOption,
    Type,
    UploadFile,
    Wait,
    from_browsergym,
)
from sandbox.actions.browsergym import SUPPORTED

REAL_CALLS = [
    ("mouse_move(65.2, 158.5)", [MouseMove(x=65, y=159)]),
    ("mouse_click(887.2, 68)", [LeftClick(x=887, y=68)]),
    ("mouse_click(56, 712.56, 'right')", [RightClick(x=56, y=713)]),
    ("mouse_click(56, 712, button='middle')", [MiddleClick(x=56, y=712)]),
    ("mouse_dblclick(5, 236)", [DoubleClick(x=5, y=236)]),
    ("mouse_down(140.2, 580.1)", [LeftMouseDown(x=140, y=580)]),
    ("mouse_up(250, 120)", [LeftMouseUp(x=250, y=120)]),
    ("mouse_drag_and_drop(10.7, 325, 235.6, 24.54)", [LeftClickDrag(start_x=11, start_y=325, end_x=236, end_y=25)]),
    ("scroll(0, 200)", [Scroll(direction="down", amount=2)]),
    ("scroll(-50.2, -100.5)", [Scroll(direction="up", amount=1), Scroll(direction="left", amount=1)]),
    ("keyboard_press('Backspace')", [Key(key="BackSpace")]),
    ("keyboard_press('Control+a')", [Key(key="ctrl+a")]),
    ("keyboard_press('Meta+Shift+t')", [Key(key="super+shift+t")]),
    ("keyboard_press('PageDown')", [Key(key="Page_Down")]),
    ("keyboard_type('Hello world!')", [Type(text="Hello world!")]),
    ("keyboard_insert_text('Hello')", [Type(text="Hello")]),
    ("noop()", [Wait(duration=1.0)]),
    ("noop(500)", [Wait(duration=0.5)]),
    ("noop(wait_ms=250)", [Wait(duration=0.25)]),
    ("click('a51')", [ClickElement(element_id="a51")]),
    ("click('b22', button=\"right\")", [ClickElement(element_id="b22", button="right")]),
    ("click('48', button=\"middle\", modifiers=[\"Shift\"])", [ClickElement(element_id="48", button="middle", modifiers=["shift"])]),
    ("click('48', modifiers=['ControlOrMeta', 'Alt'])", [ClickElement(element_id="48", modifiers=["ctrl", "alt"])]),
    ("click(48)", [ClickElement(element_id="48")]),
    ("dblclick('12')", [ClickElement(element_id="12", count=2)]),
    ("dblclick('ca42', button=\"right\")", [ClickElement(element_id="ca42", button="right", count=2)]),
    ("hover('b8')", [HoverElement(element_id="b8")]),
    ("fill('237', 'example value')", [FillElement(element_id="237", text="example value")]),
    ("fill('45', \"multi-line\\nexample\")", [FillElement(element_id="45", text="multi-line\nexample")]),
    ("fill('a12', \"example with \\\"quotes\\\"\")", [FillElement(element_id="a12", text='example with "quotes"')]),
    ("select_option('a48', \"blue\")", [SelectOption(element_id="a48", label="blue")]),
    ("select_option('c48', [\"red\", \"green\", \"blue\"])", [SelectOption(element_id="c48", label=("red", "green", "blue"))]),
    ("press('88', 'Backspace')", [FocusElement(element_id="88"), Key(key="BackSpace")]),
    ("press('a26', 'Control+a')", [FocusElement(element_id="a26"), Key(key="ctrl+a")]),
    ("focus('b455')", [FocusElement(element_id="b455")]),
    ("clear('996')", [FillElement(element_id="996", text="")]),
    ("goto('http://www.wikipedia.com')", [Goto(url="http://www.wikipedia.com")]),
    ("upload_file('572', 'data.csv')", [ClickElement(element_id="572"), UploadFile(files=["data.csv"])]),
    ("upload_file('572', ['a.csv', 'b.pdf'])", [ClickElement(element_id="572"), UploadFile(files=["a.csv", "b.pdf"])]),
    ("go_back()", [Back()]),
    ("go_forward()", [Forward()]),
    ("send_msg_to_user(\"Based on the results of my search, the city was built in 1751.\")",
     [Answer(text="Based on the results of my search, the city was built in 1751.")]),
    ("report_infeasible(\"I cannot follow these instructions because there is no email field in this form.\")",
     [ReportInfeasible(reason="I cannot follow these instructions because there is no email field in this form.")]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), REAL_CALLS, ids=[t.split("(")[0] + str(i) for i, (t, _) in enumerate(REAL_CALLS)])
def test_real_action_strings(text, expected):
    assert from_browsergym(text) == expected


def test_every_supported_function_is_exercised():
    used = {text.split("(")[0] for text, _ in REAL_CALLS}
    assert used == set(SUPPORTED)
    for _, example, _doc in SUPPORTED.values():
        assert from_browsergym(example)  # the examples shown in prompts parse


def test_several_calls_and_code_fences():
    text = "```python\nfill('a12', 'Acme')\n# then submit\npress('a12', 'Enter')\n```"
    assert from_browsergym(text) == [FillElement(element_id="a12", text="Acme"), FocusElement(element_id="a12"), Key(key="Return")]
    assert from_browsergym("click('a1'); click('a2')") == [ClickElement(element_id="a1"), ClickElement(element_id="a2")]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("tab_focus(2)", "tab_focus is not supported"),
        ("new_tab()", "Supported: mouse_move"),
        ("upload_file('a1', '/etc/passwd')", "is not a file name: give the name only"),  # no path of this machine
        ("mouse_upload_file(3, 4, 'a.csv')", "click at the point, then upload_file"),
        ("upload_file(0, 0)", "file must be a path or a list of paths, got 0"),  # found by test_fuzz
        ("keyboard_down('Shift')", "keyboard_down is not supported"),
        ("drag_and_drop('a', 'b')", "not supported"),
        ("launch_missiles()", "unknown function 'launch_missiles'"),
        ("click()", "missing a required argument: 'bid'"),
        ("click('a', butto='left')", "unexpected keyword argument 'butto'"),
        ("mouse_click(1)", "missing a required argument: 'y'"),
        ("mouse_click(1, 2, 'side')", "button must be"),
        ("mouse_dblclick(1, 2, 'right')", "only button='left'"),
        ("mouse_click(-3, 4)", "from 0 to 9999"),
        ("mouse_click('1', 2)", "must be a number"),
        ("keyboard_press('Retrun')", "unknown key 'Retrun'"),
        ("keyboard_press('')", "empty"),
        ("scroll(0, 0)", "scrolls nothing"),
        ("noop(120000)", "wait_ms must be a number of milliseconds from 0 to 20000"),
        ("fill('a1', 42)", "valid string"),
        ("click(['a'])", "bid must be"),
        ("click(bid)", "must be literals"),
        ("click(*args)", "*args and **kwargs are not accepted"),
        ("__import__('os').system('rm -rf /')", "expected a function call"),
        ("import os", "expected a function call"),
        ("x = click('a')", "expected a function call"),
        ("click('a'", "not a valid call"),
        ("", "empty"),
        ("```\n```", "empty"),
    ],
)
def test_malformed_or_unsupported(text, needle):
    with pytest.raises(ActionError) as err:
        from_browsergym(text)
    assert needle in str(err.value)


def test_error_names_the_failing_line():
    with pytest.raises(ActionError, match=r"line 2 \(foo\(\)\)"):
        from_browsergym("click('a1')\nfoo()")


def test_nothing_is_evaluated(monkeypatch):
    called = []
    monkeypatch.setattr("builtins.eval", lambda *a, **k: called.append(a))
    monkeypatch.setattr("builtins.exec", lambda *a, **k: called.append(a))
    from_browsergym("fill('a', 'x')")
    with pytest.raises(ActionError):
        from_browsergym("click(open('/etc/passwd').read())")
    assert called == []


def test_not_a_string():
    with pytest.raises(ActionError, match="string"):
        from_browsergym(["click('a')"])  # type: ignore[arg-type]
