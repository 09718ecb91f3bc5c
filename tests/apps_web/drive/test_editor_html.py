"""The document editor's content drawn by the server (``apps_web.drive.editor_html``), in real Chromium:
the markup equals Quill's own rendering for every format a document keeps and for every document of a
seeded world, the page takes it (``data-drawn="server"``) and its contents equal the stored document;
markup Quill would not produce (a link it sanitizes) is refused and the Delta is set instead, so the
page shows the same document either way."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from apps_web.drive import documents as docs
from apps_web.drive.editor_html import editor_html

from .conftest import client_for, my_root, rows, user

pytestmark = pytest.mark.browser

LINK = "https://intranet.example.com/a?b=1&c=\"2\""
DELTAS = [
    # runs with every mark, nested and neighbouring (bold shared by a link and an underline)
    [{"insert": "a"}, {"insert": "b", "attributes": {"bold": True, "italic": True, "underline": True, "link": LINK}},
     {"insert": "c", "attributes": {"italic": True}}, {"insert": "\n"}],
    [{"insert": "d", "attributes": {"link": LINK, "bold": True}}, {"insert": "e", "attributes": {"underline": True, "bold": True}},
     {"insert": "\n", "attributes": {"header": 2}}],
    # headings, the title (h6), lists of both kinds sharing one <ol>, empty lines
    [{"insert": "Title"}, {"insert": "\n", "attributes": {"header": 6}}, {"insert": "one\n"}, {"insert": "two"},
     {"insert": "\n", "attributes": {"list": "bullet"}}, {"insert": "\n", "attributes": {"list": "bullet"}},
     {"insert": "four", "attributes": {"italic": True}}, {"insert": "\n", "attributes": {"list": "ordered"}},
     {"insert": "\n", "attributes": {"header": 1}}, {"insert": "h3"}, {"insert": "\n", "attributes": {"header": 3}}, {"insert": "\n"}],
    # tables: rows by id, an empty cell, marks in a cell, two tables apart, a list right after a table
    [{"insert": "c1"}, {"insert": "\n", "attributes": {"table": "row-t1r1"}}, {"insert": "\n", "attributes": {"table": "row-t1r1"}},
     {"insert": "c3", "attributes": {"bold": True}}, {"insert": "\n", "attributes": {"table": "row-t1r2"}}, {"insert": "x"},
     {"insert": "\n", "attributes": {"table": "row-t1r2"}}, {"insert": "\n"}, {"insert": "y"}, {"insert": "\n", "attributes": {"table": "row-t2r1"}},
     {"insert": "item"}, {"insert": "\n", "attributes": {"list": "bullet"}}, {"insert": "\n"}],
    # links Quill rewrites to about:blank (schemes it does not allow) and ones it keeps
    [{"insert": "j", "attributes": {"link": "javascript:alert(1)"}}, {"insert": "k", "attributes": {"link": " Data:text/html,x"}},
     {"insert": "m", "attributes": {"link": "mailto:ap@example.com"}}, {"insert": "r", "attributes": {"link": "/doc/1"}}, {"insert": "\n"}],
    # text that must be escaped, spaces and tabs kept
    [{"insert": "  two  spaces <&> \"q\" 'a'\ttab </template> end\n"}, {"insert": "\n"}],
]

# Quill's rendering of ``ops`` next to the server's markup parsed by the browser (the same DOM or not).
COMPARE = """([ops, html]) => {
  const q = Quill.find(document.getElementById('editor'));
  q.setContents(ops, 'silent');
  const d = document.createElement('div');
  d.innerHTML = html;
  return [q.root.innerHTML, d.innerHTML];
}"""


@pytest.fixture(scope="module")
def me(world):
    return user(world, "sales_rep", 3)


def new_document(live_host, world, me, name: str, blocks: list) -> int:
    with client_for(live_host, world, me[1]) as api:
        did = api.post("/api/items", json={"parent_id": my_root(world, me[0]), "kind": "document", "name": name}).json()["id"]
        assert api.put(f"/api/documents/{did}", json={"blocks": blocks}).status_code == 200
    return did


def test_markup_equals_quills_rendering_for_every_format_and_every_seeded_document(page: Page, live_host, world, me) -> None:
    did = new_document(live_host, world, me, "Formats", [{"style": "Normal", "runs": [{"text": "x"}]}])
    page.goto(live_host.url("drive", f"/doc/{did}"))
    expect(page.locator("#editor")).to_have_attribute("data-drawn", "server")
    for ops in DELTAS:
        quill, ours = page.evaluate(COMPARE, [ops, str(editor_html({"ops": ops}))])
        assert ours == quill, json.dumps(ops)
    # every document of the world: its stored blocks as the page's Delta, drawn as Quill draws it
    seen = 0
    for (item_id,) in rows(world, "SELECT id FROM drive_item WHERE kind = 'document' AND deleted_at IS NULL ORDER BY id"):
        blocks = [{"style": style, "rows": json.loads(runs)} if style == docs.TABLE else {"style": style, "runs": json.loads(runs)}
                  for style, runs in rows(world, "SELECT style, runs FROM drive_block WHERE item_id = ? ORDER BY position", item_id)]
        delta = docs.to_delta(docs.normalize(blocks))
        quill, ours = page.evaluate(COMPARE, [delta["ops"], str(editor_html(delta))])
        assert ours == quill, item_id
        seen += 1
    assert seen >= 20


def test_the_page_takes_the_servers_markup_and_falls_back_to_the_delta(page: Page, live_host, world, me) -> None:
    blocks = [{"style": "Title", "runs": [{"text": "Renewal memo"}]},
              {"style": "Normal", "runs": [{"text": "Terms at "}, {"text": "the portal", "link": "https://portal.example.com/t", "bold": True}]},
              {"style": "List Bullet", "runs": [{"text": "Price held"}]},
              {"style": "Table", "rows": [[[{"text": "Plan"}], [{"text": "Seats"}]], [[{"text": "Pro"}], [{"text": "40"}]]]}]
    did = new_document(live_host, world, me, "Drawn", blocks)
    page.goto(live_host.url("drive", f"/doc/{did}"))
    editor = page.locator("#editor")
    expect(editor).to_have_attribute("data-drawn", "server")
    expect(page.locator(".ql-editor h6")).to_have_text("Renewal memo")
    expect(page.locator(".ql-editor td").nth(3)).to_have_text("40")
    # typing and saving works on the taken markup: the stored document gains the text, nothing else changes
    page.locator(".ql-editor li").click()
    page.keyboard.press("End")
    page.keyboard.type(" for 2027")
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")
    stored = [(s, t) for s, t in rows(world, "SELECT style, text FROM drive_block WHERE item_id = ? ORDER BY position", did)]
    assert stored == [("Title", "Renewal memo"), ("Normal", "Terms at the portal"), ("List Bullet", "Price held for 2027"), ("Table", "Plan\tSeats\nPro\t40")]
    # A link Quill rewrites (an unsafe scheme) makes the markup differ from what Quill holds: the page
    # sets the Delta instead and shows the document as before.
    odd = new_document(live_host, world, me, "Odd link", [{"style": "Normal", "runs": [{"text": "click", "link": "javascript:alert(1)"}, {"text": " here"}]}])
    page.goto(live_host.url("drive", f"/doc/{odd}"))
    expect(editor).to_have_attribute("data-drawn", "delta")
    expect(page.locator(".ql-editor p").first).to_have_text("click here")
