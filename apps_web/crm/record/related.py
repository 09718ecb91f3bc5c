"""Related lists of the record pages: a count, the first rows, and how "New" works for each.

Every list is two bulk queries (a count and a page of rows) plus the shared users map, so a
record page costs the same whatever the size of the world.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from sqlalchemy import and_, func, or_
from sqlmodel import Session, select

from ...identity.models import User
from ...ui import fmt_date, fmt_datetime, money
from ..models import Account, Activity, Case, Contact, Note, Opportunity, OpportunityContactRole
from ..objects import OBJECTS
from ..sharing import visible_here

PREVIEW_ROWS = 5


@dataclass
class Cell:
    text: str = ""
    href: str | None = None


@dataclass
class RelatedList:
    key: str  # "contacts": the ?list= of View All
    title: str  # "Contacts"
    object_key: str  # what the rows are ("contact"), for the icon
    columns: list[str]
    rows: list[list[Cell]]
    total: int
    new: dict[str, Any] | None = None  # {"label", "dialog"} or {"label", "object", "prefill"}
    row_actions: list[dict[str, Any]] = field(default_factory=list)  # per row: {"label", "action"} or None
    tiles: list[dict[str, Any]] | None = None  # notes show as tiles (title, meta, whole body), not a table
    links: list[dict[str, str]] = field(default_factory=list)  # header buttons that open a page: {"label", "href"}
    look: tuple[str, str] | None = None  # (icon, colour) of rows that are not a record object (campaigns)

    @property
    def icon(self) -> str:
        return self.look[0] if self.look else OBJECTS[self.object_key].icon

    @property
    def color(self) -> str:
        return self.look[1] if self.look else OBJECTS[self.object_key].color


def _owner(users: dict[int, User], user_id: int | None) -> str:
    u = users.get(user_id) if user_id else None
    return u.name if u else ""


def _page(session: Session, query, limit: int | None) -> list:
    return list(session.exec(query.limit(limit) if limit else query).all())


def _count(session: Session, model, *where) -> int:
    return session.exec(select(func.count()).select_from(model).where(*where)).one()


# -- activity scope: which activities belong to a record's timeline -----------------------------------------
def activity_scope(object_key: str, record_id: int):
    """Activities shown on a record: its own, and for an account those of its contacts, deals and cases
    (Salesforce rolls activities up to the account)."""
    own = and_(Activity.related_type == object_key, Activity.related_id == record_id)
    if object_key == "contact":
        return or_(own, Activity.contact_id == record_id)
    if object_key == "account":
        contacts = select(Contact.id).where(Contact.account_id == record_id)
        opps = select(Opportunity.id).where(Opportunity.account_id == record_id)
        cases = select(Case.id).where(Case.account_id == record_id)
        return or_(
            own,
            and_(Activity.related_type == "contact", Activity.related_id.in_(contacts)),
            and_(Activity.related_type == "opportunity", Activity.related_id.in_(opps)),
            and_(Activity.related_type == "case", Activity.related_id.in_(cases)),
            Activity.contact_id.in_(contacts),
        )
    return own


KIND_LABEL = {"task": "Task", "call": "Call", "meeting": "Event"}


def activity_date(a: Activity):
    if a.kind == "meeting" and a.start_at:
        return a.start_at
    return a.due_date or a.completed_at or a.created_at


# -- the lists ---------------------------------------------------------------------------------------------
def _contacts(session, users, where, limit, prefill) -> RelatedList:
    where = and_(where, *visible_here(session, "contact"))  # only the records the user may see, as Salesforce lists them
    q = select(Contact).where(where).order_by(Contact.last_name, Contact.first_name, Contact.id)
    rows = [[Cell(c.name, f"/contacts/{c.id}"), Cell(c.title or ""), Cell(c.email or ""), Cell(c.phone or "")] for c in _page(session, q, limit)]
    return RelatedList("contacts", "Contacts", "contact", ["Contact Name", "Title", "Email", "Phone"], rows, _count(session, Contact, where),
                       new={"label": "New", "object": "contact", "prefill": prefill})


def _opportunities(session, users, where, limit, prefill) -> RelatedList:
    where = and_(where, *visible_here(session, "opportunity"))  # only the records the user may see, as Salesforce lists them
    q = select(Opportunity).where(where).order_by(Opportunity.close_date.desc(), Opportunity.id.desc())
    rows = [[Cell(o.name, f"/opportunities/{o.id}"), Cell(o.stage), Cell(money(o.amount)), Cell(fmt_date(o.close_date))] for o in _page(session, q, limit)]
    return RelatedList("opportunities", "Opportunities", "opportunity", ["Opportunity Name", "Stage", "Amount", "Close Date"], rows,
                       _count(session, Opportunity, where), new={"label": "New", "object": "opportunity", "prefill": prefill})


def _cases(session, users, where, limit, prefill) -> RelatedList:
    where = and_(where, *visible_here(session, "case"))  # only the records the user may see, as Salesforce lists them
    q = select(Case).where(where).order_by(Case.case_number.desc(), Case.id.desc())
    rows = [[Cell(c.case_number, f"/cases/{c.id}"), Cell(c.subject), Cell(c.status), Cell(c.priority), Cell(fmt_datetime(c.created_at))] for c in _page(session, q, limit)]
    return RelatedList("cases", "Cases", "case", ["Case Number", "Subject", "Status", "Priority", "Date Opened"], rows,
                       _count(session, Case, where), new={"label": "New", "object": "case", "prefill": prefill})


def load_activities(session: Session, object_key: str, record_id: int) -> list[Activity]:
    """Every activity of a record, newest first: one query shared by the related list and the timeline."""
    q = select(Activity).where(activity_scope(object_key, record_id)).order_by(Activity.due_date.desc(), Activity.start_at.desc(), Activity.id.desc())
    return list(session.exec(q).all())


def _activities(session, users, scope, limit, preloaded: list[Activity] | None = None) -> RelatedList:
    if preloaded is not None:
        acts, total = (preloaded[:limit] if limit else preloaded), len(preloaded)
    else:
        q = select(Activity).where(scope).order_by(Activity.due_date.desc(), Activity.start_at.desc(), Activity.id.desc())
        acts, total = _page(session, q, limit), _count(session, Activity, scope)
    rows = [[Cell(a.subject, OBJECTS["activity"].url(a.id)), Cell(KIND_LABEL.get(a.kind, a.kind)), Cell(fmt_date(activity_date(a))), Cell(a.status if a.kind != "meeting" else ""),
             Cell(_owner(users, a.assignee_id))] for a in acts]
    return RelatedList("activities", "Activities", "activity", ["Subject", "Type", "Date", "Status", "Assigned To"], rows,
                       total, new={"label": "New Task", "dialog": "new-task-dialog"})


def _notes(session, users, object_key, record_id, limit) -> RelatedList:
    where = and_(Note.related_type == object_key, Note.related_id == record_id)
    q = select(Note).where(where).order_by(Note.created_at.desc(), Note.id.desc())
    notes = _page(session, q, limit)
    rows = [[Cell(n.title), Cell(n.body or ""), Cell(_owner(users, n.owner_id)), Cell(fmt_datetime(n.created_at))] for n in notes]
    tiles = [{"title": n.title, "body": n.body or "", "meta": " • ".join(p for p in (fmt_datetime(n.created_at), _owner(users, n.owner_id)) if p)}
             for n in notes]
    return RelatedList("notes", "Notes", "note", ["Title", "Body", "Owner", "Created"], rows, _count(session, Note, where),
                       new={"label": "New", "dialog": "new-note-dialog"}, tiles=tiles)


def _campaign_history(session, users, object_key: str, record, limit) -> RelatedList:
    """Campaign History of a lead or a contact: the campaigns it is a member of, latest start first, with
    its member status; Add to Campaign opens the record page's dialog."""
    from ..models import Campaign, CampaignMember

    col = CampaignMember.lead_id if object_key == "lead" else CampaignMember.contact_id
    where = col == record.id
    q = (select(CampaignMember, Campaign).join(Campaign, Campaign.id == CampaignMember.campaign_id).where(where)
         .order_by(Campaign.start_date.desc(), Campaign.name, CampaignMember.id))
    rows = [[Cell(c.name, f"/campaigns/{c.id}"), Cell(fmt_date(c.start_date)), Cell(c.type or ""), Cell(m.status),
             Cell(fmt_date(m.first_responded_date) if m.has_responded else "")] for m, c in _page(session, q, limit)]
    converted = object_key == "lead" and record.converted_at
    return RelatedList("campaign-history", "Campaign History", object_key,
                       ["Campaign Name", "Start Date", "Type", "Member Status", "First Responded Date"], rows,
                       _count(session, CampaignMember, where), look=("event", "#f49756"),
                       new=None if converted else {"label": "Add to Campaign", "dialog": "add-campaign-dialog"})


def _contact_roles(session, users, opp: Opportunity, limit) -> RelatedList:
    where = OpportunityContactRole.opportunity_id == opp.id
    q = (select(OpportunityContactRole, Contact).join(Contact, Contact.id == OpportunityContactRole.contact_id).where(where)
         .order_by(OpportunityContactRole.is_primary.desc(), Contact.last_name, Contact.first_name, OpportunityContactRole.id))
    pairs = _page(session, q, limit)
    rows = [[Cell(c.name, f"/contacts/{c.id}"), Cell(c.title or ""), Cell(r.role or ""), Cell("Primary" if r.is_primary else "")] for r, c in pairs]
    actions = [{"label": f"Remove {c.name}", "action": f"/opportunities/{opp.id}/contact-roles/{r.id}/delete"} for r, c in pairs]
    return RelatedList("contact-roles", "Contact Roles", "contact", ["Contact Name", "Title", "Role", "Primary"], rows,
                       _count(session, OpportunityContactRole, where), new={"label": "Add Contact Roles", "dialog": "contact-role-dialog"},
                       row_actions=actions)


def _products(session, users, opp: Opportunity, limit) -> RelatedList:
    from ..products import line_items

    pairs = line_items(session, opp.id)
    shown = pairs[:limit] if limit else pairs
    rows = [[Cell(p.name), Cell(f"{li.quantity:,g}"), Cell(money(li.unit_price, 2)), Cell(f"{li.discount:g}%" if li.discount else ""),
             Cell(money(li.total_price, 2))] for li, p in shown]
    actions = [{"label": f"Delete {p.name}", "action": f"/opportunities/{opp.id}/products/{li.id}/delete"} for li, p in shown]
    links = [{"label": "Add Products", "href": f"/opportunities/{opp.id}/products/add"}]
    if pairs:
        links.append({"label": "Edit Products", "href": f"/opportunities/{opp.id}/products/edit"})
    return RelatedList("products", "Products", "opportunity", ["Product", "Quantity", "Sales Price", "Discount", "Total Price"], rows,
                       len(pairs), row_actions=actions, links=links)


def _history(session, users, object_key: str, record_id: int, limit) -> RelatedList:
    from ..history import display, history_rows, label

    rows_, total = history_rows(session, object_key, record_id, limit)
    rows = [[Cell(fmt_datetime(h.changed_at)), Cell(label(object_key, h.field)), Cell(_owner(users, h.user_id)),
             Cell(display(h.field, h.old_value, users)), Cell(display(h.field, h.new_value, users))] for h in rows_]
    title = f"{object_key.capitalize()} History"  # Opportunity History, Case History, Lead History
    return RelatedList("history", title, object_key, ["Date", "Field", "User", "Original Value", "New Value"], rows, total)


def _quotes(session, users, opp: Opportunity, limit) -> RelatedList:
    from ..models import Quote

    where = Quote.opportunity_id == opp.id
    q = select(Quote).where(where).order_by(Quote.created_at.desc(), Quote.id.desc())
    rows = [[Cell(x.name, f"/quotes/{x.id}"), Cell(x.quote_number), Cell(x.status), Cell(fmt_date(x.expiration_date)), Cell(money(x.total_price, 2))]
            for x in _page(session, q, limit)]
    return RelatedList("quotes", "Quotes", "opportunity", ["Quote Name", "Quote Number", "Status", "Expiration Date", "Total Price"], rows,
                       _count(session, Quote, where), links=[{"label": "New Quote", "href": f"/opportunities/{opp.id}/quotes/new"}])


def _contact_opportunities(session, users, contact: Contact, limit) -> RelatedList:
    where = and_(OpportunityContactRole.contact_id == contact.id,
                 OpportunityContactRole.opportunity_id.in_(select(Opportunity.id).where(*visible_here(session, "opportunity"))))
    q = (select(Opportunity, OpportunityContactRole).join(OpportunityContactRole, OpportunityContactRole.opportunity_id == Opportunity.id)
         .where(where).order_by(Opportunity.close_date.desc(), Opportunity.id.desc(), OpportunityContactRole.id))
    rows = [[Cell(o.name, f"/opportunities/{o.id}"), Cell(o.stage), Cell(money(o.amount)), Cell(fmt_date(o.close_date)), Cell(r.role or "")]
            for o, r in _page(session, q, limit)]
    prefill = {"account_id": contact.account_id} if contact.account_id else {}
    return RelatedList("opportunities", "Opportunities", "opportunity", ["Opportunity Name", "Stage", "Amount", "Close Date", "Role"], rows,
                       _count(session, OpportunityContactRole, where), new={"label": "New", "object": "opportunity", "prefill": prefill})


Loader = Callable[[Session, dict[int, User], Any, int | None], RelatedList]


def _account_lists(record: Account) -> dict[str, Loader]:
    pre = {"account_id": record.id}
    return {
        "contacts": lambda s, u, r, n: _contacts(s, u, Contact.account_id == r.id, n, pre),
        "opportunities": lambda s, u, r, n: _opportunities(s, u, Opportunity.account_id == r.id, n, pre),
        "cases": lambda s, u, r, n: _cases(s, u, Case.account_id == r.id, n, pre),
        "activities": lambda s, u, r, n: _activities(s, u, activity_scope("account", r.id), n),
        "notes": lambda s, u, r, n: _notes(s, u, "account", r.id, n),
        "files": lambda s, u, r, n: _files(s, u, "account", r, n),
    }


def _files(session, users, object_key: str, record, limit) -> RelatedList | None:
    from .files import drive_installed, files_list  # the drive's files linked to the record (record/files.py)

    return files_list(session, users, object_key, record, limit) if drive_installed(session) else None


def _contact_lists(record: Contact) -> dict[str, Loader]:
    pre = {"contact_id": record.id, **({"account_id": record.account_id} if record.account_id else {})}
    return {
        "opportunities": lambda s, u, r, n: _contact_opportunities(s, u, r, n),
        "cases": lambda s, u, r, n: _cases(s, u, Case.contact_id == r.id, n, pre),
        "activities": lambda s, u, r, n: _activities(s, u, activity_scope("contact", r.id), n),
        "campaign-history": lambda s, u, r, n: _campaign_history(s, u, "contact", r, n),
        "notes": lambda s, u, r, n: _notes(s, u, "contact", r.id, n),
    }


def _simple_lists(object_key: str) -> Callable[[Any], dict[str, Loader]]:
    def lists(record) -> dict[str, Loader]:
        out: dict[str, Loader] = {}
        if object_key == "opportunity":
            out["products"] = lambda s, u, r, n: _products(s, u, r, n)
            out["quotes"] = lambda s, u, r, n: _quotes(s, u, r, n)
            out["contact-roles"] = lambda s, u, r, n: _contact_roles(s, u, r, n)
        out["activities"] = lambda s, u, r, n: _activities(s, u, activity_scope(object_key, r.id), n)
        if object_key == "lead":
            out["campaign-history"] = lambda s, u, r, n: _campaign_history(s, u, "lead", r, n)
        out["notes"] = lambda s, u, r, n: _notes(s, u, object_key, r.id, n)
        if object_key == "opportunity":
            out["files"] = lambda s, u, r, n: _files(s, u, object_key, r, n)
        if object_key in ("opportunity", "case", "lead"):
            out["history"] = lambda s, u, r, n: _history(s, u, object_key, r.id, n)
        return out

    return lists


LISTS: dict[str, Callable[[Any], dict[str, Loader]]] = {
    "account": _account_lists,
    "contact": _contact_lists,
    "lead": _simple_lists("lead"),
    "opportunity": _simple_lists("opportunity"),
    "case": _simple_lists("case"),
}


def related_lists(session: Session, users: dict[int, User], object_key: str, record,
                  activities: list[Activity] | None = None) -> list[RelatedList]:
    """The record's related lists (first rows and counts); ``activities`` from ``load_activities`` saves a query."""
    out = []
    for key, load in LISTS[object_key](record).items():
        if key == "activities" and activities is not None:
            out.append(_activities(session, users, None, PREVIEW_ROWS, activities))
        else:
            out.append(load(session, users, record, PREVIEW_ROWS))
    return [x for x in out if x is not None]


def related_list(session: Session, users: dict[int, User], object_key: str, record, key: str) -> RelatedList | None:
    load = LISTS[object_key](record).get(key)
    return load(session, users, record, None) if load else None
