"""Rows of a new drive, collected in lists with explicit ids and inserted in bulk at the end."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from ..documents import block_text, normalize, runs_json
from ..formulas import parse_ref
from ..sheets import cell_rows, plain_text

TABLES = ("drive_site", "drive_item", "drive_share", "drive_block", "drive_sheet", "drive_cell", "drive_comment", "drive_version",
          "drive_activity", "drive_contract", "drive_question")


class DriveBuilder:
    def __init__(self, now: datetime) -> None:
        self.now = now
        self.rows: dict[str, list[dict[str, Any]]] = {t: [] for t in TABLES}
        self.ids: dict[str, int] = {t: 0 for t in TABLES}
        self.places: dict[str, tuple] = {}  # folders a later part of the generator fills (e.g. "sales_shared": site, folder, owner, at)

    def add(self, table: str, **row: Any) -> int:
        self.ids[table] += 1
        row["id"] = self.ids[table]
        self.rows[table].append(row)
        return row["id"]

    def site(self, name: str, kind: str, owner_id: int | None, root_owner: int, description: str = "", restricted: bool = False,
             root_name: str = "Documents", at: datetime | None = None) -> tuple[int, int]:
        site = self.add("drive_site", name=name, kind=kind, owner_id=owner_id, root_id=None, description=description, restricted=restricted)
        root = self.item(site, None, root_name, "folder", root_owner, at or self.now)
        self.rows["drive_site"][-1]["root_id"] = root
        return site, root

    def item(self, site: int, parent: int | None, name: str, kind: str, owner: int, at: datetime, **extra: Any) -> int:
        row = {"site_id": site, "parent_id": parent, "name": name, "kind": kind, "owner_id": owner, "created_at": at, "modified_at": at,
               "modified_by_id": owner, "size": 0, "content_type": "", "data": None, "text": "", "version": 1, "deleted_at": None,
               "deleted_by_id": None, "crm_account_id": None, "crm_opportunity_id": None}
        row.update(extra)
        return self.add("drive_item", **row)

    def folder(self, site: int, parent: int, name: str, owner: int, at: datetime) -> int:
        return self.item(site, parent, name, "folder", owner, at)

    def _item_row(self, item_id: int) -> dict[str, Any]:
        return self.rows["drive_item"][item_id - 1]

    def document(self, site: int, parent: int, name: str, owner: int, at: datetime, blocks: list[dict[str, Any]],
                 history: list[tuple[list[dict[str, Any]], datetime, int]] = (), **extra: Any) -> int:
        """A document and its versions: ``history`` lists earlier (blocks, saved at, author) oldest first."""
        blocks = normalize(blocks)
        text = "\n".join(block_text(b) for b in blocks)
        item = self.item(site, parent, name, "document", owner, at, text=text, size=len(text.encode()), version=len(history) + 1, **extra)
        for pos, b in enumerate(blocks):
            self.add("drive_block", item_id=item, position=pos, style=b["style"], text=block_text(b), runs=runs_json(b))
        for n, (old, when, author) in enumerate(list(history) + [(blocks, at, owner)], start=1):
            snap = json.dumps({"blocks": normalize(old)})
            self.add("drive_version", item_id=item, number=n, content=snap, size=len(snap), author_id=author, created_at=when, note="")
        self.add("drive_activity", item_id=item, user_id=owner, action="created", detail=f"Created word document “{name}”", at=history[0][1] if history else at)
        if history:
            self.add("drive_activity", item_id=item, user_id=owner, action="edited", detail="Edited", at=at)
        return item

    def workbook(self, site: int, parent: int, name: str, owner: int, at: datetime, sheets: list[tuple[str, dict[str, str]]], **extra: Any) -> int:
        """A workbook from (sheet name, {ref: input}); values computed by the formula engine."""
        inputs = {sname: {parse_ref(ref): text for ref, text in cells.items()} for sname, cells in sheets}
        text = plain_text(inputs)
        item = self.item(site, parent, name, "sheet", owner, at, text=text, size=len(text.encode()) + 2000, **extra)
        ids = {}
        for pos, (sname, _cells) in enumerate(sheets):
            ids[sname] = self.add("drive_sheet", item_id=item, name=sname, position=pos, freeze_rows=0, freeze_cols=0, filter_range="", filter_criteria="{}", sort_state="")
        for row in cell_rows(item, ids, inputs):
            self.add("drive_cell", **row)
        snap = json.dumps({"sheets": [{"name": s, "cells": c} for s, c in sheets]})
        self.add("drive_version", item_id=item, number=1, content=snap, size=len(snap), author_id=owner, created_at=at, note="")
        self.add("drive_activity", item_id=item, user_id=owner, action="created", detail=f"Created excel workbook “{name}”", at=at)
        return item

    def share(self, item: int, role: str, at: datetime, by: int, user_id: int | None = None, group: str | None = None) -> None:
        self.add("drive_share", item_id=item, user_id=user_id, group_name=group, role=role, created_at=at, created_by_id=by)

    def insert(self, session) -> None:  # noqa: ANN001
        # Straight to the driver: SQLAlchemy's per-row processing would triple the generator's time.
        dbapi = session.connection().connection.driver_connection
        for table in TABLES:
            rows = self.rows[table]
            if rows:
                columns = list(rows[0])
                sql = f'insert into {table} ({", ".join(columns)}) values ({", ".join("?" * len(columns))})'
                dbapi.executemany(sql, [tuple(_db(r[c]) for c in columns) for r in rows])


def _db(value: Any) -> Any:
    return value.strftime("%Y-%m-%d %H:%M:%S.%f") if isinstance(value, datetime) else value
