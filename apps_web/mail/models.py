"""Mail objects. Tables are prefixed ``mail_``; mailbox owners are users of the shared identity.

Like Exchange, every mailbox holds its own copy of a message: the sender's copy sits in Sent Items,
each internal recipient's copy in their Inbox, all sharing one ``internet_message_id`` and one
``conversation_id``. A message row and its recipient rows are all another part of the world (a
colleague simulation, a verifier) needs to read or answer a message.

Cross-app references (the CRM account, opportunity or case a message is about) are plain ids.
Datetimes are naive wall-clock times of the world clock.
"""

from __future__ import annotations

from pydantic import NaiveDatetime
from sqlmodel import Field, SQLModel

USER_FK = "identity_user.id"

# Well-known folders (Outlook's names); user folders have kind "custom".
FOLDER_KINDS = ("inbox", "drafts", "sent", "archive", "deleted", "junk")
FOLDER_NAMES = {
    "inbox": "Inbox", "drafts": "Drafts", "sent": "Sent Items", "archive": "Archive",
    "deleted": "Deleted Items", "junk": "Junk Email",
}
RECIPIENT_KINDS = ("to", "cc", "bcc")


class Mailbox(SQLModel, table=True):
    """A user's own mailbox, or a shared mailbox (support@, billing@...) that has no owner: its
    members (``mail_mailbox_member``) open it from their folder pane and send as its address."""

    __tablename__ = "mail_mailbox"
    id: int | None = Field(default=None, primary_key=True)
    user_id: int | None = Field(default=None, foreign_key=USER_FK, index=True, unique=True)  # None for a shared mailbox
    address: str = Field(max_length=254, index=True, unique=True)
    display_name: str = Field(max_length=160)
    kind: str = Field(default="user", max_length=10, sa_column_kwargs={"server_default": "user"})  # user | shared


class MailboxMember(SQLModel, table=True):
    """Who may open a shared mailbox (Exchange's Full Access) and send from its address (Send As)."""

    __tablename__ = "mail_mailbox_member"
    id: int | None = Field(default=None, primary_key=True)
    mailbox_id: int = Field(foreign_key="mail_mailbox.id", index=True)
    user_id: int = Field(foreign_key=USER_FK, index=True)
    full_access: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    send_as: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})


class Folder(SQLModel, table=True):
    __tablename__ = "mail_folder"
    id: int | None = Field(default=None, primary_key=True)
    mailbox_id: int = Field(foreign_key="mail_mailbox.id", index=True)
    name: str = Field(max_length=120)
    kind: str = Field(default="custom", max_length=10)  # inbox | drafts | sent | archive | deleted | junk | custom
    position: int = 0


class Message(SQLModel, table=True):
    __tablename__ = "mail_message"
    id: int | None = Field(default=None, primary_key=True)
    mailbox_id: int = Field(foreign_key="mail_mailbox.id", index=True)
    folder_id: int = Field(foreign_key="mail_folder.id", index=True)
    conversation_id: str = Field(max_length=40, index=True)
    internet_message_id: str = Field(max_length=120, index=True)  # shared by every copy of one sent message
    in_reply_to: str | None = Field(default=None, max_length=120)  # internet_message_id of the parent
    subject: str = Field(default="", max_length=255)
    body_html: str = ""  # the whole body, quoted history included (sanitised when shown)
    unique_body_html: str = ""  # the part written for this message (no quoted history), as Graph's uniqueBody
    preview: str = Field(default="", max_length=255)
    from_address: str = Field(max_length=254, index=True)
    from_name: str = Field(default="", max_length=160)
    sent_at: NaiveDatetime | None = Field(default=None, index=True)  # None for a draft never sent
    received_at: NaiveDatetime | None = None
    is_read: bool = True
    is_flagged: bool = False
    is_draft: bool = False
    importance: str = Field(default="normal", max_length=10)  # low | normal | high
    categories: str = Field(default="", max_length=255)  # comma-separated category names
    has_attachments: bool = False
    # What the message is about in the CRM (plain ids into the CRM's tables; none when unrelated).
    crm_account_id: int | None = Field(default=None, index=True)
    crm_opportunity_id: int | None = Field(default=None, index=True)
    crm_case_id: int | None = Field(default=None, index=True)
    reply_to_message_id: int | None = None  # the message this draft/reply answers (same mailbox)
    forward_of_message_id: int | None = None
    # A meeting message: the calendar event it is about, and what it is (request | accepted |
    # tentative | declined | cancel); None for ordinary mail.
    event_id: int | None = Field(default=None, index=True)
    meeting_type: str | None = Field(default=None, max_length=10)
    created_at: NaiveDatetime | None = None
    updated_at: NaiveDatetime | None = None  # bookkeeping: verifiers ignore it


class Recipient(SQLModel, table=True):
    __tablename__ = "mail_recipient"
    id: int | None = Field(default=None, primary_key=True)
    message_id: int = Field(foreign_key="mail_message.id", index=True)
    kind: str = Field(default="to", max_length=3)  # to | cc | bcc
    address: str = Field(max_length=254, index=True)
    name: str = Field(default="", max_length=160)
    position: int = 0


class Attachment(SQLModel, table=True):
    """A file on one message copy. An upload or a copy of a cloud file holds its bytes in ``data``
    (as the drive keeps an upload's bytes in ``drive_item.data``); a cloud file shared as a link holds
    none: ``drive_item_id`` names the drive item and ``is_link`` is set. Generated history has
    names and sizes only (its content is rendered when downloaded)."""

    __tablename__ = "mail_attachment"
    id: int | None = Field(default=None, primary_key=True)
    message_id: int = Field(foreign_key="mail_message.id", index=True)
    name: str = Field(max_length=255)
    size: int = 0  # bytes
    content_type: str = Field(default="application/octet-stream", max_length=120)
    data: bytes | None = None
    drive_item_id: int | None = Field(default=None, index=True)  # the drive file it came from (plain id)
    is_link: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})  # shared as a OneDrive link rather than attached as a copy


class Signature(SQLModel, table=True):
    """A named email signature of a mailbox (Settings > Mail > Compose and reply), and whether it is
    the one added to new messages and to replies and forwards."""

    __tablename__ = "mail_signature"
    id: int | None = Field(default=None, primary_key=True)
    mailbox_id: int = Field(foreign_key="mail_mailbox.id", index=True)
    name: str = Field(max_length=120)
    body_html: str = ""
    position: int = 0
    default_new: bool = False
    default_reply: bool = False


from .calendar.models import Attendee, Event, Profile, Room  # noqa: E402,F401  (registers the calendar tables)
from .options import AutoReply, Rule  # noqa: E402,F401  (registers the options' tables)

TABLES = {"mailbox": Mailbox, "folder": Folder, "message": Message, "recipient": Recipient, "attachment": Attachment,
          "mailbox_member": MailboxMember, "signature": Signature}
