"""The drive's JSON API and pages over HTTP against the real host and a real world: permissions
enforced on the server, items, documents as blocks, sheets with computed values, sharing, the recycle
bin, versions, and the same validation messages as the pages."""

from __future__ import annotations

import html
import io

import pytest

from .conftest import client_for, my_root, rows, user


@pytest.fixture(scope="module")
def rep(world):
    return user(world, "sales_rep")


@pytest.fixture(scope="module")
def api(live_host, world, rep):
    with client_for(live_host, world, rep[1]) as c:
        yield c


def follow(client, r) -> str:
    """The page a form's redirect leads to, with the toast its cookie carries."""
    assert r.status_code == 303, r.text
    flash = "; ".join(f"{k}={v}" for k, v in r.cookies.items())
    path = "/" + r.headers["location"].split("/", 3)[-1] if "://" in r.headers["location"] else r.headers["location"]
    return html.unescape(client.get(path, headers={"Cookie": client.headers["Cookie"] + "; " + flash}).text)


def test_permissions_items_documents_sheets(live_host, world, rep, api) -> None:
    with client_for(live_host, world, None) as anon:
        assert anon.get("/api/items").status_code == 401
    root = my_root(world, rep[0])
    listing = api.get("/api/items").json()
    assert listing["folder"]["id"] == root and listing["folder"]["your_role"] == "owner"
    assert {"Account Plans", "Proposals"} <= {i["name"] for i in listing["items"]}
    # Someone else's file: 404 in the API and a 404 page in the app's look.
    other = world.one("SELECT i.id FROM drive_item i JOIN drive_site s ON s.id = i.site_id WHERE s.kind = 'personal' AND s.owner_id != ? "
                      "AND i.kind = 'document' ORDER BY i.id", rep[0])[0]
    assert api.get(f"/api/items/{other}").status_code == 404
    with client_for(live_host, world, rep[1], accept="text/html") as pages:
        r = pages.get(f"/doc/{other}")
        assert r.status_code == 404 and "permission" in r.text
        # The data room is restricted: a sales rep can't open it.
        dr = world.one("SELECT root_id FROM drive_site WHERE kind = 'dataroom'")[0]
        assert pages.get(f"/folders/{dr}").status_code == 404
        assert pages.get("/my").status_code == 200 and pages.get("/recycle").status_code == 200
    # Create a document through the API with blocks; bad blocks are refused with a message.
    doc = api.post("/api/items", json={"parent_id": root, "kind": "document", "name": "Memo"}).json()
    bad = api.put(f"/api/documents/{doc['id']}", json={"blocks": [{"style": "Heading 9", "runs": []}]})
    assert bad.status_code == 422 and "unknown style" in bad.json()["detail"]
    ok = api.put(f"/api/documents/{doc['id']}", json={"blocks": [{"style": "Heading 1", "runs": [{"text": "Summary"}]},
                                                                  {"style": "Normal", "runs": [{"text": "Revenue grew ", "bold": True}, {"text": "12%."}]}]})
    assert ok.status_code == 200
    assert rows(world, "SELECT style, text FROM drive_block WHERE item_id = ? ORDER BY position", doc["id"]) == [("Heading 1", "Summary"), ("Normal", "Revenue grew 12%.")]
    assert api.get("/api/search", params={"q": "Revenue grew"}).json()["items"][0]["id"] == doc["id"]
    dup = api.post("/api/items", json={"parent_id": root, "kind": "document", "name": "memo"})
    assert dup.status_code == 422 and "already exists" in dup.json()["detail"]
    bad_name = api.post("/api/items", json={"parent_id": root, "kind": "folder", "name": "a/b"})
    assert bad_name.status_code == 422 and "can't contain" in bad_name.json()["detail"]
    # A sheet: formulas computed on the server, errors as Excel shows them.
    sheet = api.post("/api/items", json={"parent_id": root, "kind": "sheet", "name": "Calc"}).json()
    edits = [{"sheet": "Sheet1", "ref": r, "input": v} for r, v in
             (("A1", "10"), ("A2", "32"), ("A3", "=SUM(A1:A2)"), ("B1", "=A1/0"), ("B2", "=NOPE(1)"), ("B3", "=C3"), ("C3", "=B3"), ("B4", "=Other!A1"))]
    r = api.patch(f"/api/sheets/{sheet['id']}/cells", json={"edits": edits})
    assert r.status_code == 200 and sorted(r.json()["circular"]) == ["Sheet1!B3", "Sheet1!C3"]
    got = {c["ref"]: c for c in api.get(f"/api/sheets/{sheet['id']}").json()["sheets"][0]["cells"]}
    assert got["A3"]["number"] == 42 and got["A3"]["input"] == "=SUM(A1:A2)"
    assert (got["B1"]["value"], got["B2"]["value"], got["B4"]["value"]) == ("#DIV/0!", "#NAME?", "#REF!")
    assert got["B3"]["error"] == "circular" and got["B3"]["value"] == "0"
    assert api.patch(f"/api/sheets/{sheet['id']}/cells", json={"sheet": "Nope", "ref": "A1", "input": "1"}).status_code == 422
    assert "outside the sheet" in api.patch(f"/api/sheets/{sheet['id']}/cells", json={"sheet": "Sheet1", "ref": "A0", "input": "1"}).json()["detail"]
    # Delete -> recycle bin -> restore.
    assert api.delete(f"/api/items/{doc['id']}").status_code == 200
    assert world.one("SELECT deleted_at IS NOT NULL FROM drive_item WHERE id = ?", doc["id"])[0] == 1
    assert api.get(f"/api/documents/{doc['id']}").status_code == 404
    assert api.post(f"/api/items/{doc['id']}/restore").status_code == 200
    assert world.one("SELECT deleted_at FROM drive_item WHERE id = ?", doc["id"])[0] is None


def test_share_upload_download_and_round_trips(live_host, world, rep, api) -> None:
    root = my_root(world, rep[0])
    folder = api.post("/api/items", json={"parent_id": root, "kind": "folder", "name": "Shared deal room"}).json()
    colleague = user(world, "finance")
    bad = api.post(f"/api/items/{folder['id']}/shares", json={"role": "admin", "user_ids": [colleague[0]]})
    assert bad.status_code == 422 and "Can view or Can edit" in bad.json()["detail"]
    assert api.post(f"/api/items/{folder['id']}/shares", json={"role": "view", "user_ids": [colleague[0]], "groups": ["Marketing"]}).status_code == 200
    assert sorted(rows(world, "SELECT user_id, group_name, role FROM drive_share WHERE item_id = ?", folder["id"]), key=str) == sorted(
        [(colleague[0], None, "view"), (None, "Marketing", "view")], key=str)
    # The colleague now sees it (view only: writing is refused with 403).
    with client_for(live_host, world, colleague[1]) as theirs:
        assert theirs.get(f"/api/items/{folder['id']}").json()["your_role"] == "view"
        assert theirs.post("/api/items", json={"parent_id": folder["id"], "kind": "folder", "name": "x"}).status_code == 422
        assert theirs.delete(f"/api/items/{folder['id']}").status_code == 403
    # Upload: a text file is kept as bytes; a .docx/.xlsx becomes a document/workbook; corrupt and oversized files are refused.
    import docx
    import openpyxl

    d = docx.Document()
    d.add_heading("Quarterly review", level=1)
    p = d.add_paragraph("Bookings rose ")
    p.add_run("sharply").bold = True
    buf = io.BytesIO()
    d.save(buf)
    wb = openpyxl.Workbook()
    wb.active.title = "Data"
    wb.active["A1"], wb.active["A2"], wb.active["A3"] = 5, 7, "=A1*A2"
    xbuf = io.BytesIO()
    wb.save(xbuf)
    with client_for(live_host, world, rep[1], accept="text/html") as pages:
        files = [("files", ("notes.txt", b"hello drive", "text/plain")), ("files", ("Review.docx", buf.getvalue(), "application/octet-stream")),
                 ("files", ("Model.xlsx", xbuf.getvalue(), "application/octet-stream"))]
        r = pages.post(f"/folders/{folder['id']}/upload", files=files, follow_redirects=False)
        assert r.status_code == 303
        kinds = dict(rows(world, "SELECT name, kind FROM drive_item WHERE parent_id = ?", folder["id"]))
        assert kinds == {"notes.txt": "file", "Review": "document", "Model": "sheet"}
        review = world.one("SELECT id FROM drive_item WHERE parent_id = ? AND name = 'Review'", folder["id"])[0]
        assert rows(world, "SELECT style, runs FROM drive_block WHERE item_id = ? ORDER BY position", review) == [
            ("Heading 1", '[{"text":"Quarterly review"}]'), ("Normal", '[{"text":"Bookings rose "},{"text":"sharply","bold":true}]')]
        model = world.one("SELECT id FROM drive_item WHERE parent_id = ? AND name = 'Model'", folder["id"])[0]
        assert world.one("SELECT number FROM drive_cell WHERE item_id = ? AND ref = 'A3'", model)[0] == 35
        before = world.one("SELECT count(*) FROM drive_item")[0]
        r = pages.post(f"/folders/{folder['id']}/upload", files=[("files", ("Broken.docx", b"PK\x03\x04 not really", "application/octet-stream"))])
        assert "isn't a Word document" in follow(pages, r)
        r = pages.post(f"/folders/{folder['id']}/upload", files=[("files", ("big.bin", b"0" * (10 * 1024 * 1024 + 1), "application/octet-stream"))])
        assert "files up to 10 MB" in follow(pages, r)
        assert world.one("SELECT count(*) FROM drive_item")[0] == before
        # Download round trips: the document as .docx and the workbook as .xlsx read back by the libraries.
        got = pages.get(f"/files/{review}/download")
        assert got.headers["content-type"].startswith("application/vnd.openxmlformats") and "Review.docx" in got.headers["content-disposition"]
        back = docx.Document(io.BytesIO(got.content))
        assert [(p.style.name, p.text) for p in back.paragraphs] == [("Heading 1", "Quarterly review"), ("Normal", "Bookings rose sharply")]
        assert back.paragraphs[1].runs[1].bold
        wb2 = openpyxl.load_workbook(io.BytesIO(pages.get(f"/files/{model}/download").content))
        assert wb2.sheetnames == ["Data"] and wb2["Data"]["A3"].value == "=A1*A2" and wb2["Data"]["A1"].value == 5
        txt = world.one("SELECT id FROM drive_item WHERE parent_id = ? AND name = 'notes.txt'", folder["id"])[0]
        assert pages.get(f"/files/{txt}/download").content == b"hello drive"
        # Versions: an edit makes version 2 (another day or editor), restoring version 1 brings the text back.
        assert api.put(f"/api/documents/{review}", json={"blocks": [{"style": "Normal", "runs": [{"text": "Rewritten"}]}]}).status_code == 200
        versions = rows(world, "SELECT number FROM drive_version WHERE item_id = ? ORDER BY number", review)
        assert versions[0] == (1,)
        r = pages.post(f"/files/{review}/restore-version", data={"version": "1", "back": f"/files/{review}/details"}, follow_redirects=False)
        assert r.status_code == 303
        assert rows(world, "SELECT text FROM drive_block WHERE item_id = ? ORDER BY position", review) == [("Quarterly review",), ("Bookings rose sharply",)]
