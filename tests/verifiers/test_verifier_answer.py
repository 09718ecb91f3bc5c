"""Answer checks (exact, normalized, number, set, regex, contains) and the infeasible check."""

from __future__ import annotations

import pytest

from verifiers import build_verifier, parse_number, split_items


def grade(world, check, answer=None, **ctx):
    return build_verifier([check]).verify(world.context(answer=answer, **ctx))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1234.5", 1234.5),
        ("$1,234.50", 1234.5),
        ("The total is $1,234.50.", 1234.5),
        ("USD 1,234.50", 1234.5),
        ("€ 99", 99.0),
        ("-3", -3.0),
        ("(1,234.50)", -1234.5),
        ("45%", 45.0),
        ("1.2k", 1200.0),
        ("3.5 million", 3.5e6),
        ("2bn", 2e9),
        ("5 meetings", 5.0),
        ("12 cases", 12.0),
        ("no number", None),
        ("between 3 and 4", None),
        ("2026-03-16", None),
    ],
)
def test_parse_number(text, value):
    assert parse_number(text) == value


def test_number_match_and_tolerance(world):
    check = {"kind": "answer", "match": "number", "expected": 1234.5, "tol": 0.01}
    assert grade(world, check, "$1,234.50").passed
    assert grade(world, check, "1234.505").passed
    near = grade(world, check, "1234.52")  # a near miss outside the tolerance
    assert not near.passed and near.checks[0].detail == "read 1234.52"
    assert not grade(world, {"kind": "answer", "match": "number", "expected": 1234.5}, "1.2k").passed
    assert grade(world, {"kind": "answer", "match": "number", "expected": 1200}, "1.2k").passed
    assert grade(world, {"kind": "answer", "match": "number", "expected": 1000, "rel_tol": 0.05}, "1,040").passed
    two = grade(world, check, "either 1234.5 or 99")
    assert not two.passed and two.checks[0].detail == "the answer holds 2 numbers, not one"


def test_missing_answer(world):
    v = grade(world, {"kind": "answer", "expected": "Acme"}, None)
    assert not v.passed and v.checks[0].detail == "no answer was given"


def test_exact_and_normalized(world):
    assert grade(world, {"kind": "answer", "match": "exact", "expected": "Acme Corp"}, "  Acme Corp\n").passed
    assert not grade(world, {"kind": "answer", "match": "exact", "expected": "Acme Corp"}, "acme corp").passed
    norm = {"kind": "answer", "expected": "Acme Corp"}
    assert grade(world, norm, "  ACME,   corp. ").passed
    assert not grade(world, norm, "Acme Corporation").passed
    assert grade(world, {"kind": "answer", "expected": ["Acme", "Acme Corp"]}, "acme").passed


def test_set(world):
    check = {"kind": "answer", "match": "set", "expected": ["Acme Corp", "Globex"]}
    assert grade(world, check, "Globex, acme corp").passed
    assert grade(world, check, "- Acme Corp\n- Globex\n").passed
    assert grade(world, check, "1. Globex\n2. Acme Corp").passed
    v = grade(world, check, "Globex; Initech")
    assert not v.passed and v.checks[0].detail == "missing acme corp; unexpected initech"
    ordered = {**check, "ordered": True}
    assert grade(world, ordered, "Acme Corp, Globex").passed
    assert not grade(world, ordered, "Globex, Acme Corp").passed
    assert split_items("a, b;c\n  - d ") == ["a", "b", "c", "d"]


def test_regex_and_contains(world):
    assert grade(world, {"kind": "answer", "match": "regex", "expected": r"CASE-\d{4}"}, "It is case-0042").passed
    assert not grade(world, {"kind": "answer", "match": "regex", "expected": r"CASE-\d{4}", "case_sensitive": True},
                     "case-0042").passed
    assert not grade(world, {"kind": "answer", "match": "regex", "expected": r"\d+", "fullmatch": True}, "12 apples").passed
    contains = {"kind": "answer", "match": "contains", "expected": ["Acme", "renewal"]}
    assert grade(world, contains, "The Acme RENEWAL closes soon.").passed
    v = grade(world, contains, "The Acme expansion")
    assert not v.passed and v.checks[0].detail == "does not mention renewal"
    assert not grade(world, {"kind": "answer", "match": "contains", "expected": "Acme"}, "Acmeville").passed


def test_parametrised_answer(world):
    check = {"kind": "answer", "match": "number", "expected": "{{ total }}"}
    assert grade(world, check, "42", params={"total": 42}).passed
    assert not grade(world, check, "41", params={"total": 42}).passed


def test_infeasible_expected(world):
    check = {"kind": "infeasible"}
    v = grade(world, check, infeasible=True, infeasible_reason="no such account")
    assert v.passed and v.checks[0].sentence == "the agent reported the task infeasible"
    v = grade(world, check, answer="done")
    assert not v.passed and v.checks[0].detail == "the agent did not report infeasible"


def test_feasible_task_fails_when_agent_gives_up(world):
    v = build_verifier([{"kind": "changes"}]).verify(world.context(infeasible=True, infeasible_reason="too hard"))
    assert not v.passed
    assert v.checks[-1].name == "not_infeasible" and "too hard" in v.checks[-1].detail
    # without giving up the same (empty) world passes
    assert build_verifier([{"kind": "changes"}]).verify(world.context()).passed
    # an explicit expected: false check replaces the automatic one
    v = build_verifier([{"kind": "infeasible", "expected": False}]).verify(world.context(infeasible=True))
    assert not v.passed and [c.name for c in v.checks] == ["infeasible"]


def test_yaml_typed_expected_values_compare_as_text(world):
    import datetime as dt

    assert grade(world, {"kind": "answer", "expected": 42.0}, "42").passed
    assert grade(world, {"kind": "answer", "expected": dt.date(2026, 3, 16)}, "2026-03-16").passed
    assert grade(world, {"kind": "answer", "match": "set", "expected": [1, 2]}, "2, 1").passed
