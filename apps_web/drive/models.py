"""Drive objects. Tables are prefixed ``drive_``; owners and sharers are users of the shared identity.

A *site* is a document library: each employee's "My files", team sites and data rooms. Its files and
folders are *items* in one tree. A document's content is its ``drive_block`` rows (one per paragraph,
with a style and formatted runs); a spreadsheet's is its ``drive_sheet`` and ``drive_cell`` rows (the
input as typed, the value the server computed); an upload's is its bytes. Verifiers read these rows.

Sharing entries (``drive_share``) grant a user or a group (a department of the identity) a role on an
item and everything under it. Cross-app references (the CRM account or opportunity a file is about)
are plain ids. Datetimes are naive wall-clock times of the world clock.
"""

from __future__ import annotations

from pydantic import NaiveDatetime
from sqlmodel import Field, SQLModel

USER_FK = "identity_user.id"
ITEM_FK = "drive_item.id"

SITE_KINDS = ("personal", "team", "dataroom")
ITEM_KINDS = ("folder", "document", "sheet", "file")
ROLES = ("view", "edit")
ROLE_LABELS = {"view": "Can view", "edit": "Can edit", "owner": "Owner"}


class Site(SQLModel, table=True):
    __tablename__ = "drive_site"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=160)
    kind: str = Field(default="personal", max_length=10)  # personal | team | dataroom
    owner_id: int | None = Field(default=None, foreign_key=USER_FK, index=True)
    root_id: int | None = Field(default=None, index=True)  # the library's top folder (an item)
    description: str = Field(default="", max_length=500)
    restricted: bool = False  # a data room: every view is written to the access log


class Item(SQLModel, table=True):
    __tablename__ = "drive_item"
    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="drive_site.id", index=True)
    parent_id: int | None = Field(default=None, foreign_key=ITEM_FK, index=True)
    name: str = Field(max_length=255, index=True)
    kind: str = Field(default="file", max_length=10)  # folder | document | sheet | file
    owner_id: int = Field(foreign_key=USER_FK, index=True)
    created_at: NaiveDatetime | None = None
    modified_at: NaiveDatetime | None = Field(default=None, index=True)
    modified_by_id: int | None = Field(default=None, foreign_key=USER_FK)
    size: int = 0  # bytes (uploads) or an estimate of the content (documents, sheets)
    content_type: str = Field(default="", max_length=120)
    data: bytes | None = None  # an upload's bytes
    text: str = ""  # plain text of a document or sheet, for search
    version: int = 1  # the current version's number
    deleted_at: NaiveDatetime | None = Field(default=None, index=True)  # in the recycle bin since
    deleted_by_id: int | None = Field(default=None, foreign_key=USER_FK)
    crm_account_id: int | None = Field(default=None, index=True)
    crm_opportunity_id: int | None = Field(default=None, index=True)


class Share(SQLModel, table=True):
    __tablename__ = "drive_share"
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(foreign_key=ITEM_FK, index=True)
    user_id: int | None = Field(default=None, foreign_key=USER_FK, index=True)  # a person...
    group_name: str | None = Field(default=None, max_length=80)  # ...or a group (a department)
    role: str = Field(default="view", max_length=6)  # view | edit
    created_at: NaiveDatetime | None = None
    created_by_id: int | None = Field(default=None, foreign_key=USER_FK)
    link_id: int | None = Field(default=None, foreign_key="drive_link.id")  # granted through a sharing link


LINK_SCOPES = ("organization", "people")


class Link(SQLModel, table=True):
    """A sharing link ("Copy link"): who it works for (everyone in the organisation who has it, or the
    specific people it was made for) and what it lets them do. Opening it grants that access (a
    ``drive_share`` row with ``link_id``) and is written to the file's activity."""

    __tablename__ = "drive_link"
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(foreign_key=ITEM_FK, index=True)
    token: str = Field(max_length=40, index=True)
    scope: str = Field(default="organization", max_length=12)  # organization | people
    role: str = Field(default="view", max_length=6)  # view | edit
    created_by_id: int | None = Field(default=None, foreign_key=USER_FK)
    created_at: NaiveDatetime | None = None


class RecordLink(SQLModel, table=True):
    """A drive file linked to a record of another app (the CRM's "Files" related list on an opportunity
    or an account: "Add Files"), as Salesforce links a file to the records it belongs to."""

    __tablename__ = "drive_record_link"
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(foreign_key=ITEM_FK, index=True)
    app: str = Field(default="crm", max_length=20)
    object_type: str = Field(max_length=30)  # opportunity | account
    record_id: int = Field(index=True)
    created_by_id: int | None = Field(default=None, foreign_key=USER_FK)
    created_at: NaiveDatetime | None = None


class Block(SQLModel, table=True):
    """One paragraph of a document: its style (Word's names) and its text as formatted runs."""

    __tablename__ = "drive_block"
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(foreign_key=ITEM_FK, index=True)
    position: int = 0
    style: str = Field(default="Normal", max_length=20)  # Title | Heading 1..3 | Normal | List Bullet | List Number
    text: str = ""
    runs: str = "[]"  # JSON: [{"text", "bold"?, "italic"?, "underline"?, "link"?}]


class Sheet(SQLModel, table=True):
    __tablename__ = "drive_sheet"
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(foreign_key=ITEM_FK, index=True)
    name: str = Field(max_length=31)
    position: int = 0
    # Defaults in the schema too, so a task's set-up that inserts a sheet row need not name them.
    freeze_rows: int = Field(default=0, sa_column_kwargs={"server_default": "0"})  # frozen panes: rows kept at the top, columns at the left
    freeze_cols: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    filter_range: str = Field(default="", max_length=20, sa_column_kwargs={"server_default": ""})  # the AutoFilter's range ("A1:H31"), "" when off
    filter_criteria: str = Field(default="{}", sa_column_kwargs={"server_default": "{}"})  # JSON {column letter: [values shown]} (sorted), as Excel's
    sort_state: str = Field(default="", max_length=40, sa_column_kwargs={"server_default": ""})  # the last sort: "C1:C31 desc" (the key column's range)


class Cell(SQLModel, table=True):
    """A non-empty cell: what was typed (``input``: a value or a formula starting with "=") and the
    value the server computed (``value`` as shown; ``number`` when it is numeric)."""

    __tablename__ = "drive_cell"
    id: int | None = Field(default=None, primary_key=True)
    sheet_id: int = Field(foreign_key="drive_sheet.id", index=True)
    item_id: int = Field(foreign_key=ITEM_FK, index=True)
    row: int  # 1-based
    col: int  # 1-based (A = 1)
    ref: str = Field(max_length=12)  # "B7"
    input: str = ""
    value: str = ""
    number: float | None = None
    error: str | None = Field(default=None, max_length=10)  # #DIV/0!, #REF!, #NAME?, #VALUE!, #N/A, #CIRC!


CHART_KINDS = ("column", "bar", "line", "pie")
CHART_LABELS = {"column": "Clustered Column", "bar": "Clustered Bar", "line": "Line", "pie": "Pie"}


class Chart(SQLModel, table=True):
    """A chart on a sheet (Insert > Chart over a selected range), as Excel keeps one: its type, the
    source range on the same sheet (first column: the categories; each further column a series, named
    by its header when the first row holds text), its title and where it sits (the cell under its
    top-left corner, and its size in pixels). Drawn from the computed values on every render."""

    __tablename__ = "drive_chart"
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(foreign_key=ITEM_FK, index=True)
    sheet_id: int = Field(foreign_key="drive_sheet.id", index=True)
    kind: str = Field(default="column", max_length=10)  # column | bar | line | pie
    source: str = Field(max_length=20)  # "A1:C7"
    title: str = Field(default="", max_length=120)
    anchor: str = Field(default="F2", max_length=12)  # the cell under the chart's top-left corner
    width: int = 480
    height: int = 288
    created_by_id: int | None = Field(default=None, foreign_key=USER_FK)
    created_at: NaiveDatetime | None = None


class Comment(SQLModel, table=True):
    """A comment anchored to a passage of a document (the quoted text), with replies and resolution."""

    __tablename__ = "drive_comment"
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(foreign_key=ITEM_FK, index=True)
    parent_id: int | None = Field(default=None, foreign_key="drive_comment.id")
    anchor: str = ""  # the quoted text the comment is attached to
    block_position: int | None = None  # the paragraph holding the anchor
    body: str = ""
    author_id: int = Field(foreign_key=USER_FK)
    created_at: NaiveDatetime | None = None
    resolved: bool = False


class Suggestion(SQLModel, table=True):
    """A tracked change (Word's suggesting mode): in paragraph ``block_position``, the text ``anchor``
    at ``offset`` is replaced by ``text`` (an insertion has no anchor, a deletion no text). Accepting
    writes it into the paragraph; rejecting leaves the paragraph as it is."""

    __tablename__ = "drive_suggestion"
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(foreign_key=ITEM_FK, index=True)
    block_position: int = 0
    offset: int = 0  # where in the paragraph's text the change starts
    anchor: str = ""  # the text removed (or replaced)
    text: str = ""  # the text inserted
    author_id: int = Field(foreign_key=USER_FK)
    created_at: NaiveDatetime | None = None
    status: str = Field(default="open", max_length=10)  # open | accepted | rejected
    resolved_by_id: int | None = Field(default=None, foreign_key=USER_FK)
    resolved_at: NaiveDatetime | None = None


class Version(SQLModel, table=True):
    """A saved version: a snapshot of the content (JSON), as OneDrive keeps version history."""

    __tablename__ = "drive_version"
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(foreign_key=ITEM_FK, index=True)
    number: int
    content: str = ""  # JSON snapshot: {"blocks": [...]} or {"sheets": [...]} or {"data_b64": ...}
    size: int = 0
    author_id: int | None = Field(default=None, foreign_key=USER_FK)
    created_at: NaiveDatetime | None = None
    note: str = Field(default="", max_length=200)


class Activity(SQLModel, table=True):
    """The file's activity log (and a data room's access log: views by who and when)."""

    __tablename__ = "drive_activity"
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(foreign_key=ITEM_FK, index=True)
    user_id: int | None = Field(default=None, foreign_key=USER_FK)
    action: str = Field(max_length=20)  # created | edited | renamed | moved | copied | shared | deleted | restored | viewed | ...
    detail: str = Field(default="", max_length=300)
    at: NaiveDatetime | None = None


class Contract(SQLModel, table=True):
    """The ground truth of a data room's contract: which clause variants it holds and where."""

    __tablename__ = "drive_contract"
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(foreign_key=ITEM_FK, index=True, unique=True)
    site_id: int = Field(foreign_key="drive_site.id", index=True)
    number: int = 0  # its No. in the data room's Contract Index
    category: str = Field(max_length=40)  # the data room folder: Corporate | Commercial Contracts | ...
    contract_type: str = Field(max_length=60)  # NDA | MSA | Lease | Employment Agreement | Licence | ...
    counterparty: str = Field(max_length=160)
    effective_date: NaiveDatetime | None = None
    term_months: int = 0
    governing_law: str = Field(default="", max_length=60)
    governing_law_section: str = Field(default="", max_length=10)
    coc: str = Field(default="none", max_length=20)  # none | notice | consent | termination
    coc_section: str = Field(default="", max_length=10)
    assignment: str = Field(default="free", max_length=20)  # free | consent | prohibited
    assignment_section: str = Field(default="", max_length=10)
    liability: str = Field(default="capped", max_length=20)  # capped | uncapped | none
    liability_cap: str = Field(default="", max_length=120)
    liability_section: str = Field(default="", max_length=10)
    annual_value: float | None = None


class Question(SQLModel, table=True):
    """The data room's Q&A log: a buyer's question, the answer, status."""

    __tablename__ = "drive_question"
    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="drive_site.id", index=True)
    number: str = Field(max_length=10)
    topic: str = Field(max_length=60)
    question: str = ""
    answer: str = ""
    status: str = Field(default="open", max_length=10)  # open | answered
    asked_by: str = Field(default="", max_length=120)
    asked_at: NaiveDatetime | None = None
    item_id: int | None = Field(default=None, foreign_key=ITEM_FK)


TABLES = {"site": Site, "item": Item, "share": Share, "link": Link, "record_link": RecordLink, "block": Block, "sheet": Sheet, "cell": Cell, "chart": Chart, "comment": Comment,
          "suggestion": Suggestion, "version": Version, "activity": Activity, "contract": Contract, "question": Question}
