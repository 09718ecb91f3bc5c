"""The "Files" related list of opportunities and accounts: drive files linked to the record ("Add
Files" picks a file the user can see in the drive). The links are ``drive_record_link`` rows of the
drive app; without the drive installed the list is not shown."""

from __future__ import annotations

from typing import Any

from sqlalchemy import inspect
from sqlmodel import Session, select

from ...identity.models import User
from ...ui import fmt_datetime

OBJECT_TYPES = ("opportunity", "account")
KIND_LABELS = {"document": "Word", "sheet": "Excel", "file": "File"}


def drive_installed(session: Session) -> bool:
    info = session.info
    if "drive_installed" not in info:
        info["drive_installed"] = inspect(session.get_bind()).has_table("drive_record_link")
    return info["drive_installed"]


def file_size(n: int) -> str:
    return f"{n / 1024:.0f} KB" if n >= 1024 else f"{n} bytes"


def linked_files(session: Session, object_key: str, record_id: int) -> list[tuple[Any, Any]]:
    """(link, item) pairs of the record's files, newest link first; files in the recycle bin are left out."""
    from ...drive.models import Item, RecordLink

    q = (select(RecordLink, Item).join(Item, Item.id == RecordLink.item_id)
         .where(RecordLink.app == "crm", RecordLink.object_type == object_key, RecordLink.record_id == record_id, Item.deleted_at.is_(None))
         .order_by(RecordLink.created_at.desc(), RecordLink.id.desc()))
    return list(session.exec(q).all())


def files_list(session: Session, users: dict[int, User], object_key: str, record: Any, limit: int | None):  # noqa: ANN201
    from .related import Cell, RelatedList

    pairs = linked_files(session, object_key, record.id)
    shown = pairs[:limit] if limit else pairs
    rows = [[Cell(i.name, f"/record-files/open/{i.id}"), Cell(users[i.owner_id].name if i.owner_id in users else ""),
             Cell(fmt_datetime(i.modified_at)), Cell(KIND_LABELS.get(i.kind, "File"))] for _link, i in shown]
    base = "/opportunities" if object_key == "opportunity" else "/accounts"
    actions = [{"label": f"Remove {i.name} from Record", "action": f"{base}/{record.id}/files/{link.id}/delete"} for link, i in shown]
    return RelatedList("files", "Files", object_key, ["Title", "Owner", "Last Modified", "Type"], rows, len(pairs),
                       new={"label": "Add Files", "dialog": "add-files-dialog"}, row_actions=actions)
