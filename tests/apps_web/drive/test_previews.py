"""File previews in real Chromium: a PDF (a vendor invoice of the world) drawn by pdf.js with its text
readable and in the page, page navigation and zoom, the same pixels twice; an uploaded image shown as
an image; a damaged PDF or image answered with "We can't preview this file" and Download; the bytes
served inline only to people who may see the file."""

from __future__ import annotations

import io
import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import client_for, my_root, rows

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def me(world):
    return world.one("SELECT id, username, department FROM identity_user WHERE department = 'Finance' ORDER BY id")


def upload(live_host, world, me, name: str, data: bytes, ctype: str) -> int:
    with client_for(live_host, world, me[1], accept="text/html") as http:
        r = http.post(f"/folders/{my_root(world, me[0])}/upload", files={"files": (name, data, ctype)}, follow_redirects=False)
        assert r.status_code == 303, r.text
    return world.one("SELECT id FROM drive_item WHERE name = ? AND owner_id = ? ORDER BY id DESC", name, me[0])[0]


def test_invoice_pdf_preview(page: Page, live_host, world, me) -> None:
    item, name, text = world.one("SELECT i.id, i.name, i.text FROM drive_item i JOIN drive_item f ON f.id = i.parent_id "
                                 "WHERE f.name = 'Accounts Payable' AND i.content_type = 'application/pdf' ORDER BY i.id")
    total = re.search(r"Total due (\$[\d,.]+)", text).group(1)
    number = re.search(r"Invoice (\S+)", text).group(1)
    page.goto(live_host.url("drive", f"/files/{item}"))
    viewer = page.locator("#pdf-viewer")
    expect(viewer).to_have_attribute("data-rendered", "true")
    first = page.get_by_role("region", name="Page 1")
    # The text layer holds the invoice's words where they are drawn: the total due and its number.
    expect(first.get_by_text(total, exact=True).last).to_be_attached()
    expect(first.get_by_text(number, exact=True).first).to_be_attached()
    expect(first.get_by_text("Total due")).to_have_count(1)
    toolbar = page.get_by_role("toolbar", name="PDF viewer")
    expect(toolbar.locator("[data-pdf-count]")).to_have_text("1")
    width = first.bounding_box()["width"]
    assert 800 <= width <= 820  # 100%: a Letter page is 816 CSS pixels wide
    shot = viewer.screenshot()
    page.reload()
    expect(viewer).to_have_attribute("data-rendered", "true")
    assert viewer.screenshot() == shot  # deterministic
    toolbar.get_by_role("button", name="Zoom in").click()
    expect(toolbar.get_by_label("Zoom", exact=True)).to_have_value("1.25")
    expect(viewer).to_have_attribute("data-rendered", "true")
    assert abs(page.get_by_role("region", name="Page 1").bounding_box()["width"] - width * 1.25) < 3
    toolbar.get_by_label("Zoom", exact=True).select_option(label="Page width")
    expect(viewer).to_have_attribute("data-rendered", "true")
    expect(toolbar.get_by_label("Page number")).to_have_value("1")
    # Someone outside Finance can't fetch the bytes.
    outsider = world.one("SELECT username FROM identity_user WHERE department = 'Sales' ORDER BY id")[0]
    with client_for(live_host, world, outsider) as http:
        assert http.get(f"/files/{item}/content").status_code == 404


def test_image_and_damaged_files(page: Page, live_host, world, me) -> None:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (120, 80), (3, 100, 184)).save(buf, "PNG")
    png = upload(live_host, world, me, "Floor plan.png", buf.getvalue(), "image/png")
    page.goto(live_host.url("drive", f"/files/{png}"))
    img = page.get_by_role("img", name="Floor plan.png")
    expect(img).to_be_visible()
    page.wait_for_function("document.querySelector('img.preview-image').complete")
    assert page.evaluate("document.querySelector('img.preview-image').naturalWidth") == 120
    # A file named .pdf that is no PDF: the message, with Download.
    bad = upload(live_host, world, me, "Signed lease.pdf", b"this is not a pdf at all", "application/pdf")
    page.goto(live_host.url("drive", f"/files/{bad}"))
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("We can't preview this file")
    expect(alert.get_by_role("link", name="Download")).to_have_attribute("href", f"/files/{bad}/download")
    # A damaged PDF (right header, broken body): pdf.js gives up and the same message shows.
    broken = upload(live_host, world, me, "Scan 0042.pdf", b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R >>\nendobj\ntrailer\n<<>>\n%%EOF", "application/pdf")
    page.goto(live_host.url("drive", f"/files/{broken}"))
    expect(page.locator("#pdf-viewer")).to_have_attribute("data-rendered", "error")
    expect(page.get_by_role("alert")).to_contain_text("We can't preview this file")
    # A .png whose bytes are text: no image, the message.
    fake = upload(live_host, world, me, "Logo.png", b"GIF? no", "image/png")
    page.goto(live_host.url("drive", f"/files/{fake}"))
    expect(page.get_by_role("alert")).to_contain_text("We can't preview this file")
    assert rows(world, "SELECT COUNT(*) FROM drive_item WHERE owner_id = ? AND name IN ('Floor plan.png', 'Signed lease.pdf', 'Scan 0042.pdf', 'Logo.png')", me[0]) == [(4,)]
