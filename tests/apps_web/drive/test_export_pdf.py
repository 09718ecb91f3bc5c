"""Word's Export > Save as PDF in real Chromium: unsaved edits are saved first, the PDF lands beside the
document under the name typed, its text is kept on the file (search finds it) and pdf.js shows it; a
name already taken is refused with nothing written. The PDF writer: headings, runs, lists, pages, the
same bytes for the same document."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from apps_web.drive.pdf import document_pdf

from .conftest import client_for, rows, user


@pytest.fixture(scope="module")
def me(world):
    return user(world, "sales_rep", 2)


def test_document_pdf_layout_is_deterministic() -> None:
    blocks = [{"style": "Title", "runs": [{"text": "Renewal memo"}]}, {"style": "Heading 1", "runs": [{"text": "Background"}]}]
    blocks += [{"style": "Normal", "runs": [{"text": f"Paragraph {i}: the customer renewed for "}, {"text": "$48,000", "bold": True},
                                            {"text": " and asked for "}, {"text": "quarterly", "italic": True}, {"text": " invoicing."}]} for i in range(60)]
    blocks += [{"style": "List Bullet", "runs": [{"text": "Licences"}]}, {"style": "List Number", "runs": [{"text": "Sign"}]},
               {"style": "List Number", "runs": [{"text": "Invoice"}]}, {"style": "Heading 2", "runs": [{"text": "Risks"}]}]
    data, text = document_pdf("Renewal memo", blocks)
    assert data == document_pdf("Renewal memo", blocks)[0]
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    pages = int(re.search(rb"/Count (\d+)", data).group(1))
    assert pages == 3 and b"(Page 3 of 3)" in data and b"/Helvetica-Oblique" in data
    lines = text.split("\n")
    assert lines[:2] == ["Renewal memo", "Background"]
    assert lines[2] == "Paragraph 0: the customer renewed for $48,000 and asked for quarterly invoicing."
    assert lines[-4:] == ["\u2022 Licences", "1. Sign", "2. Invoice", "Risks"]
    # Page order: paragraph 59 is drawn on a later page than paragraph 0.
    first, last = data.index(b"(Paragraph 0: the customer renewed for )"), data.index(b"(Paragraph 59: the customer renewed for )")
    assert data.index(b"(Page 1 of 3)") < last and first < data.index(b"(Page 1 of 3)")


@pytest.mark.browser
def test_save_as_pdf_from_the_editor(page: Page, live_host, world, me) -> None:
    doc, folder, folder_name, title = world.one(
        "SELECT i.id, f.id, f.name, i.name FROM drive_item i JOIN drive_item f ON f.id = i.parent_id "
        "WHERE i.owner_id = ? AND i.name LIKE 'Proposal - %' ORDER BY i.id", me[0])
    page.goto(live_host.url("drive", f"/doc/{doc}"))
    editor = page.locator(".ql-editor")
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.press("Enter")
    page.keyboard.type("Signed copies go to legal by Friday.")
    expect(page.locator("#save-state")).to_have_text("Unsaved changes")
    bar = page.get_by_role("toolbar", name="File")
    bar.get_by_role("button", name="File", exact=True).click()
    page.get_by_role("group", name="Export").get_by_role("menuitem", name="Save as PDF").click()
    dialog = page.get_by_role("dialog", name="Save as PDF")
    name_box = dialog.get_by_label("File name")
    expect(name_box).to_have_value(f"{title}.pdf")
    name_box.fill("Proposal for signature")
    dialog.get_by_role("button", name="Save").click()
    expect(page.locator(".toast")).to_contain_text(f"Saved “Proposal for signature.pdf” to “{folder_name}”.")
    pdf_id, kind, ctype, text, size = world.one("SELECT id, kind, content_type, text, size FROM drive_item WHERE parent_id = ? AND name = 'Proposal for signature.pdf'", folder)
    assert (kind, ctype) == ("file", "application/pdf") and size > 1000
    # The edit was saved first, and the PDF holds it, after the pricing, in the document's order.
    assert "Signed copies go to legal by Friday." in [r[0] for r in rows(world, "SELECT text FROM drive_block WHERE item_id = ?", doc)]
    assert text.index("Total investment:") < text.index("Signed copies go to legal by Friday.")
    with client_for(live_host, world, me[1]) as http:
        found = http.get("/api/search", params={"q": "legal by Friday"}).json()["items"]
        assert pdf_id in [i["id"] for i in found]
        # The same name again: the product's message, nothing written.
        r = http.post(f"/api/documents/{doc}/export-pdf", json={"name": "proposal for SIGNATURE.pdf"})
        assert r.status_code == 422 and "already exists" in r.json()["detail"]
    page.get_by_role("button", name="File", exact=True).click()
    page.get_by_role("menuitem", name="Save as PDF").click()
    dialog.get_by_label("File name").fill("Proposal for signature")
    dialog.get_by_role("button", name="Save").click()
    expect(page.locator(".toast")).to_contain_text(f"A file named “Proposal for signature.pdf” already exists in “{folder_name}”.")
    assert world.one("SELECT count(*) FROM drive_item WHERE parent_id = ? AND name LIKE 'Proposal for signature%'", folder)[0] == 1
    # pdf.js shows it, its words in the text layer.
    page.goto(live_host.url("drive", f"/files/{pdf_id}"))
    expect(page.locator("#pdf-viewer")).to_have_attribute("data-rendered", "true")
    first = page.get_by_role("region", name="Page 1")
    expect(first.get_by_text("Executive summary", exact=True)).to_be_attached()
    expect(page.locator("#pdf-viewer").get_by_text("Signed copies go to legal by Friday.")).to_be_attached()
