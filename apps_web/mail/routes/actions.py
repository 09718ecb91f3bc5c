"""The command bar: Delete, Archive, Move to, Flag/Unflag, Mark as read/unread, on the checked
messages (or the open one when none is checked)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import redirect
from ..mailbox import folder_of_kind, move, purge, set_flag, set_read, shared_boxes
from ..models import Folder, Mailbox, Message
from .common import box_of, int_list, safe_back

router = APIRouter()
ACTIONS = ("delete", "archive", "move", "flag", "unflag", "read", "unread")


def _items(n: int) -> str:
    return f"{n} item" + ("s" if n != 1 else "")


def apply_action(session, box, clock, action: str, messages: list[Message], folder_id: int | None = None) -> str:  # noqa: ANN001
    """Do ``action``; returns the toast's text. Raises ValueError with a message for bad input."""
    if action not in ACTIONS:
        raise ValueError(f"Unknown action \u201c{action}\u201d. Use one of: {', '.join(ACTIONS)}.")
    if not messages:
        raise ValueError("Select one or more messages first.")
    if action == "delete":
        deleted = folder_of_kind(session, box, "deleted")
        gone = [m for m in messages if m.folder_id == deleted.id or m.is_draft]
        purge(session, gone)
        moved = move(session, [m for m in messages if m not in gone], deleted, clock)
        return f"{_items(moved)} moved to Deleted Items." if not gone else f"{_items(len(gone) + moved)} deleted."
    if action == "archive":
        return f"{_items(move(session, messages, folder_of_kind(session, box, 'archive'), clock))} archived."
    if action == "move":
        folder = session.get(Folder, folder_id) if folder_id else None
        if folder is None or folder.mailbox_id != box.id or folder.kind == "drafts":
            raise ValueError("Choose a folder to move the messages to.")
        return f"{_items(move(session, messages, folder, clock))} moved to {folder.name}."
    if action in ("flag", "unflag"):
        set_flag(messages, action == "flag", clock)
        return f"{_items(len(messages))} {'flagged' if action == 'flag' else 'unflagged'}."
    set_read(messages, action == "read", clock)
    return f"{_items(len(messages))} marked as {action}."


@router.post("/mail/actions")
async def actions(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    form = await request.form()
    box = box_of(session, user)
    back = safe_back(str(form.get("back", "")))
    ids = int_list(form.getlist("ids")) or int_list([form.get("current", "")])
    move_to = str(form.get("move_to", ""))
    action = "move" if move_to else str(form.get("action", ""))
    if ids:  # the list shown is one mailbox's: the user's own or a shared one they are a member of
        boxes = {box.id} | {b.id for b in shared_boxes(session, user)}
        first = session.get(Message, ids[0])
        if first is not None and first.mailbox_id in boxes:
            box = session.get(Mailbox, first.mailbox_id)
    messages = list(session.exec(select(Message).where(Message.id.in_(ids), Message.mailbox_id == box.id)).all()) if ids else []
    try:
        toast = apply_action(session, box, clock, action, messages, int(move_to) if move_to.isdigit() else None)
    except ValueError as exc:
        return redirect(request, back, toast=str(exc), kind="error")
    session.commit()
    # The open message left its folder (or was marked unread, which reopening it would undo): back to the list.
    if action in ("delete", "archive", "move", "unread") and "/id/" in back:
        back = back.split("/id/")[0] + (("?" + back.split("?", 1)[1]) if "?" in back else "")
    return redirect(request, back, toast=toast)
