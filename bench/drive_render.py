"""Drive pages: server-side render time at the default scale (target: median <= 20 ms of CPU),
measured as every app's pages are (bench/_render.py), signed in as the owner of the most files:
the file lists, the data room, search, a file's details, the largest document and sheet in the
editors, and the JSON API."""

from __future__ import annotations

from . import _render

OWNER = """SELECT u.id, u.username FROM identity_user u JOIN drive_item i ON i.owner_id = u.id
           WHERE i.deleted_at IS NULL GROUP BY u.id ORDER BY count(*) DESC, u.id"""


def _pages(conn, user_id: int) -> _render.Pages:
    def first(sql: str, *args: object) -> int | None:
        row = conn.execute(sql, args).fetchone()
        return row[0] if row else None

    folder = first("SELECT p.id FROM drive_item p JOIN drive_item c ON c.parent_id = p.id WHERE p.kind = 'folder' AND p.owner_id = ? "
                   "AND c.deleted_at IS NULL GROUP BY p.id ORDER BY count(*) DESC, p.id", user_id)
    room = first("SELECT root_id FROM drive_site WHERE kind = 'dataroom' ORDER BY id")
    doc = first("SELECT i.id FROM drive_item i JOIN drive_block b ON b.item_id = i.id WHERE i.owner_id = ? AND i.deleted_at IS NULL "
                "GROUP BY i.id ORDER BY count(*) DESC, i.id", user_id)
    sheet = first("SELECT i.id FROM drive_item i JOIN drive_sheet s ON s.item_id = i.id JOIN drive_cell c ON c.sheet_id = s.id "
                  "WHERE i.owner_id = ? AND i.deleted_at IS NULL GROUP BY i.id ORDER BY count(*) DESC, i.id", user_id)
    pages = [("home", "/"), ("my files", "/my"), ("shared with me", "/shared"), ("recent", "/recent"), ("recycle bin", "/recycle"),
             ("search", "/search?q=agreement"), ("API items", "/api/items")]
    if folder:
        pages.append(("folder (largest)", f"/folders/{folder}"))
    if room:
        pages.append(("data room", f"/folders/{room}"))
    if doc:
        pages += [("file details", f"/files/{doc}/details"), ("document editor (largest)", f"/doc/{doc}"), ("API document", f"/api/documents/{doc}")]
    if sheet:
        pages += [("sheet editor (largest)", f"/sheet/{sheet}"), ("API sheet", f"/api/sheets/{sheet}")]
    return pages


def main(repeat: int = 15, warmup: int = 2) -> None:
    _render.run("Drive", "drive.localhost", OWNER, _pages, repeat=repeat, warmup=warmup)


if __name__ == "__main__":
    main()
