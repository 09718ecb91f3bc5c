"""The search syntax and the recipient fields, parsed as the search box and the compose form do."""

from __future__ import annotations

import pytest

from apps_web.mail.compose import split_addresses
from apps_web.mail.html import sanitize
from apps_web.mail.search import SearchError, parse


def test_operators_quotes_and_words() -> None:
    q = parse('from:servicedesk subject:"Signed order form" has:attachment after:2026-03-01 before:3/16/2026 renewal re:')
    assert q.terms == [("from", "servicedesk"), ("subject", "Signed order form"), ("has", "attachment"),
                       ("after", "2026-03-01"), ("before", "3/16/2026")]
    assert q.text == ["renewal", "re:"]  # an unknown word: is text, not an operator
    assert parse("").empty


@pytest.mark.parametrize("query, message", [
    ("before:yesterday", "before: needs a date such as 2026-03-01"),
    ("has:pdf", "has: only knows has:attachment"),
    ("is:important", "is: knows is:unread, is:read and is:flagged"),
    ('from:""', "from: needs a value"),
])
def test_bad_operators_say_what_to_type(query: str, message: str) -> None:
    with pytest.raises(SearchError, match=message):
        parse(query)


def test_recipient_fields() -> None:
    assert split_addresses('Ann Lee <ann@x.com>; bob@y.com,  "Cy Dee" <cy@z.org>;') == [("Ann Lee", "ann@x.com"), ("", "bob@y.com"), ("Cy Dee", "cy@z.org")]
    assert split_addresses(" ; ") == []


@pytest.mark.parametrize("hostile", [
    "<script>alert(1)</script>", '<img src=x onerror="alert(1)">', '<a href="javascript:alert(1)">x</a>', "<svg onload=alert(1)>",
    '<iframe src="https://evil.example.com"></iframe>', "<style>*{display:none}</style>", '<p onclick="alert(1)">x</p>',
    '<a href="jav&#x61;script:alert(1)">x</a>', "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>", "<form><button formaction=javascript:alert(1)>x",
])
def test_sanitizer_drops_code(hostile: str) -> None:
    out = sanitize(f"<p><b>kept</b></p>{hostile}")
    assert "<b>kept</b>" in out
    for bad in ("<script", "onerror", "onload", "onclick", "javascript:", "<iframe", "<style", "<img", "<svg", "<form", "formaction", "xlink"):
        assert bad not in out.lower()
