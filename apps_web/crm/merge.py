"""Merging duplicate accounts, contacts or leads (Salesforce's merge), shared by the wizard and the tests.

``merge_records`` keeps the master record (its id survives), copies onto it the field values chosen
from the others, moves every record related to the others onto it (contacts, opportunities, cases,
child accounts, activities, notes, contact roles, campaign members, quotes, emails, converted-lead links), then deletes
the others the way the app deletes (``deletion.delete_record``: nothing is left to cascade by then).
Each field the merge changes on the master writes a field-history row.

Salesforce's limits: two or three records of one object; a converted lead can't be merged; merging
needs the permission to delete the object (see ``can_merge``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, update
from sqlmodel import Session, select

from ..identity.models import User
from ..world import WorldClock
from . import picklists as pl
from .common import stamp
from .deletion import delete_record
from .history import raw_value
from .models import (Account, Activity, CampaignMember, Case, Contact, EmailMessage, FieldHistory, Lead, Note, Opportunity, OpportunityContactRole,
                     Quote)

MAX_RECORDS = 3
MODELS = {"account": Account, "contact": Contact, "lead": Lead}
# Fields offered in the comparison, in order: (column, label).
FIELDS: dict[str, list[tuple[str, str]]] = {
    "account": [("name", "Account Name"), ("type", "Type"), ("industry", "Industry"), ("rating", "Rating"), ("phone", "Phone"),
                ("website", "Website"), ("annual_revenue", "Annual Revenue"), ("employees", "Employees"), ("owner_id", "Account Owner"),
                ("parent_id", "Parent Account"), ("billing_street", "Billing Street"), ("billing_city", "Billing City"),
                ("billing_state", "Billing State/Province"), ("billing_postal_code", "Billing Zip/Postal Code"),
                ("billing_country", "Billing Country"), ("shipping_street", "Shipping Street"), ("shipping_city", "Shipping City"),
                ("shipping_state", "Shipping State/Province"), ("shipping_postal_code", "Shipping Zip/Postal Code"),
                ("shipping_country", "Shipping Country"), ("description", "Description")],
    "contact": [("salutation", "Salutation"), ("first_name", "First Name"), ("last_name", "Last Name"), ("account_id", "Account Name"),
                ("title", "Title"), ("department", "Department"), ("email", "Email"), ("phone", "Phone"), ("mobile", "Mobile"),
                ("reports_to_id", "Reports To"), ("lead_source", "Lead Source"), ("mailing_city", "Mailing City"),
                ("mailing_state", "Mailing State/Province"), ("mailing_country", "Mailing Country"), ("owner_id", "Contact Owner"),
                ("description", "Description")],
    "lead": [("salutation", "Salutation"), ("first_name", "First Name"), ("last_name", "Last Name"), ("company", "Company"),
             ("title", "Title"), ("status", "Lead Status"), ("source", "Lead Source"), ("rating", "Rating"), ("industry", "Industry"),
             ("email", "Email"), ("phone", "Phone"), ("annual_revenue", "Annual Revenue"), ("employees", "No. of Employees"),
             ("city", "City"), ("state", "State/Province"), ("country", "Country"), ("owner_id", "Lead Owner"), ("description", "Description")],
}
# Profiles that may merge each object (in Salesforce merging needs Delete on the object; support agents and
# marketing users here have no merge permission on accounts and contacts, nor support on leads).
MERGE_ROLES = {
    "account": {"admin", "sales_manager", "sales_rep", "support_manager"},
    "contact": {"admin", "sales_manager", "sales_rep", "support_manager"},
    "lead": {"admin", "sales_manager", "sales_rep", "marketing"},
}
NO_PERMISSION = "You don't have permission to merge {plural}. Ask your Salesforce administrator for help."
TOO_FEW = "Select at least 2 records to merge."
TOO_MANY = "You can merge up to 3 records at a time."
CONVERTED = "You can't merge converted leads: {name} was converted."


class MergeError(ValueError):
    pass


def role_of(user: User) -> str:
    return getattr(user.role, "value", user.role)


def can_merge(user: User, object_key: str) -> bool:
    return role_of(user) in MERGE_ROLES.get(object_key, set())


def check_selection(session: Session, user: User, object_key: str, ids: list[int]) -> list:
    """The records to merge, in the order given; raises MergeError with Salesforce's message."""
    from .objects import OBJECTS

    if not can_merge(user, object_key):
        raise MergeError(NO_PERMISSION.format(plural=OBJECTS[object_key].plural.lower()))
    ids = list(dict.fromkeys(ids))
    if len(ids) < 2:
        raise MergeError(TOO_FEW)
    if len(ids) > MAX_RECORDS:
        raise MergeError(TOO_MANY)
    model = MODELS[object_key]
    records = [session.get(model, i) for i in ids]
    if any(r is None for r in records):
        raise MergeError(f"One of the selected {OBJECTS[object_key].plural.lower()} doesn't exist or has been deleted.")
    from .sharing import can_edit, can_read, display_denied

    if denied := [r for r in records if not can_read(session, user, object_key, r)]:  # not visible: as if it didn't exist
        raise MergeError(f"One of the selected {OBJECTS[object_key].plural.lower()} doesn't exist or has been deleted.")
    if denied := [r for r in records if not can_edit(session, user, object_key, r)]:
        raise MergeError(display_denied(denied[0]))
    if object_key == "lead":
        for r in records:
            if r.status == pl.LEAD_CONVERTED or r.converted_at:
                raise MergeError(CONVERTED.format(name=r.name))
    return records


@dataclass
class MergeResult:
    master_id: int
    merged_ids: list[int]
    moved: dict[str, int]
    changed: dict[str, tuple[str | None, str | None]]


def _move(session: Session, model, column, losers: list[int], master: int) -> int:  # noqa: ANN001
    result = session.execute(update(model).where(column.in_(losers)).values({column.key: master}))
    return result.rowcount or 0


def merge_records(session: Session, user: User, clock: WorldClock, object_key: str, master_id: int, ids: list[int],
                  choices: dict[str, int] | None = None) -> MergeResult:
    """Merge ``ids`` (the master among them) into ``master_id``; ``choices`` maps a field to the id of the
    record whose value to keep (default: the master's). The caller commits."""
    records = check_selection(session, user, object_key, ids)
    by_id = {r.id: r for r in records}
    if master_id not in by_id:
        raise MergeError("Select a master record.")
    master = by_id[master_id]
    losers = [r.id for r in records if r.id != master_id]
    changed: dict[str, tuple[str | None, str | None]] = {}
    from .rules import FIELD_NAMES, check, messages

    new_values: dict = {}
    for name, _label in FIELDS[object_key]:
        source = (choices or {}).get(name, master_id)
        if source in by_id:
            new_values[name] = getattr(by_id[source], name)
    if errors := check(session, object_key, master, {k: v for k, v in new_values.items() if k in FIELD_NAMES[object_key].values()}):
        raise MergeError(messages(errors))  # the merged record must pass the org's validation rules
    for name, _label in FIELDS[object_key]:
        source = (choices or {}).get(name, master_id)
        if source not in by_id:
            raise MergeError("Choose a value from one of the records being merged.")
        new = getattr(by_id[source], name)
        if name in ("parent_id", "reports_to_id") and new in by_id:
            new = None if new == master_id or new in losers else new  # a record can't be its own parent
        old = getattr(master, name)
        if raw_value(old) != raw_value(new):
            changed[name] = (raw_value(old), raw_value(new))
            setattr(master, name, new)
    if object_key == "account" and master.parent_id in losers + [master_id]:
        changed.setdefault("parent_id", (raw_value(master.parent_id), None))
        master.parent_id = None
    if object_key == "contact" and master.reports_to_id in losers + [master_id]:
        changed.setdefault("reports_to_id", (raw_value(master.reports_to_id), None))
        master.reports_to_id = None
    stamp(master, user, clock)
    session.add(master)
    session.flush()
    moved: dict[str, int] = {}

    def count(key: str, n: int) -> None:
        if n:
            moved[key] = moved.get(key, 0) + n

    if object_key == "account":
        count("contact", _move(session, Contact, Contact.account_id, losers, master_id))
        count("opportunity", _move(session, Opportunity, Opportunity.account_id, losers, master_id))
        count("case", _move(session, Case, Case.account_id, losers, master_id))
        count("account", _move(session, Account, Account.parent_id, losers, master_id))
        _move(session, Quote, Quote.account_id, losers, master_id)
        _move(session, Lead, Lead.converted_account_id, losers, master_id)
        _move(session, EmailMessage, EmailMessage.account_id, losers, master_id)
        session.execute(update(EmailMessage).where(EmailMessage.what_type == "account", EmailMessage.what_id.in_(losers)).values(what_id=master_id))
    if object_key == "contact":
        count("case", _move(session, Case, Case.contact_id, losers, master_id))
        _move(session, Activity, Activity.contact_id, losers, master_id)
        _move(session, Contact, Contact.reports_to_id, losers, master_id)
        _move(session, Lead, Lead.converted_contact_id, losers, master_id)
        # Contact roles: the loser's role moves unless the master already plays one on that deal.
        have = set(session.exec(select(OpportunityContactRole.opportunity_id).where(OpportunityContactRole.contact_id == master_id)).all())
        for role in session.exec(select(OpportunityContactRole).where(OpportunityContactRole.contact_id.in_(losers))).all():
            if role.opportunity_id in have:
                session.delete(role)
            else:
                role.contact_id = master_id
                have.add(role.opportunity_id)
                session.add(role)
                count("contact_role", 1)
        session.flush()
    if object_key in ("contact", "lead"):
        # Campaign members: the loser's membership moves unless the master is already in that campaign.
        col = CampaignMember.contact_id if object_key == "contact" else CampaignMember.lead_id
        member_of = set(session.exec(select(CampaignMember.campaign_id).where(col == master_id)).all())
        for m in session.exec(select(CampaignMember).where(col.in_(losers)).order_by(CampaignMember.id)).all():
            if m.campaign_id in member_of:
                session.delete(m)
            else:
                setattr(m, col.key, master_id)
                member_of.add(m.campaign_id)
                session.add(m)
                count("campaign_member", 1)
        session.flush()
        session.execute(update(EmailMessage).where(EmailMessage.who_type == object_key, EmailMessage.who_id.in_(losers)).values(who_id=master_id))
    for model, key in ((Activity, "activity"), (Note, "note")):
        result = session.execute(update(model).where(model.related_type == object_key, model.related_id.in_(losers)).values(related_id=master_id))
        count(key, result.rowcount or 0)
    session.execute(update(EmailMessage).where(EmailMessage.related_type == object_key, EmailMessage.related_id.in_(losers))
                    .values(related_id=master_id))
    count("other_apps", repoint_other_apps(session, object_key, losers, master_id))
    for name, (old, new) in changed.items():
        session.add(FieldHistory(object_type=object_key, record_id=master_id, field=name, old_value=old, new_value=new, user_id=user.id,
                                 changed_at=clock.now))
    session.execute(delete(FieldHistory).where(FieldHistory.object_type == object_key, FieldHistory.record_id.in_(losers)))
    session.flush()
    for loser in losers:
        delete_record(session, object_key, loser)
    return MergeResult(master_id=master_id, merged_ids=losers, moved=moved, changed=changed)


# Other apps' rows that name a CRM record by id: (table, column) per object. Mail messages, chat posts and
# drive files carry the account they are about; drive's record links name any CRM record by type and id.
OTHER_APP_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "account": (("mail_message", "crm_account_id"), ("chat_message", "crm_account_id"), ("drive_item", "crm_account_id")),
}


def repoint_other_apps(session: Session, object_key: str, losers: list[int], master_id: int) -> int:
    """Point the rows of other apps that refer to the merged-away records at the master (only the apps the
    world has); a drive file linked to both keeps one link, the master's. Returns how many rows moved."""
    from sqlalchemy import bindparam, text

    tables = set(session.execute(text("SELECT name FROM sqlite_master WHERE type = 'table'")).scalars())
    ids = bindparam("ids", expanding=True)
    moved = 0
    for table, column in OTHER_APP_COLUMNS.get(object_key, ()):
        if table in tables:
            result = session.execute(text(f"UPDATE {table} SET {column} = :master WHERE {column} IN :ids").bindparams(ids),
                                     {"master": master_id, "ids": losers})
            moved += result.rowcount or 0
    if "drive_record_link" in tables:
        where = "app = 'crm' AND object_type = :obj"
        session.execute(text(f"DELETE FROM drive_record_link WHERE {where} AND record_id IN :ids AND item_id IN "
                             f"(SELECT item_id FROM drive_record_link WHERE {where} AND record_id = :master)").bindparams(ids),
                        {"obj": object_key, "ids": losers, "master": master_id})
        # Two losers may link one file: the first link moves, the others go.
        rows = session.execute(text(f"SELECT id, item_id FROM drive_record_link WHERE {where} AND record_id IN :ids ORDER BY id").bindparams(ids),
                               {"obj": object_key, "ids": losers}).all()
        seen: set[int] = set()
        for link_id, item_id in rows:
            if item_id in seen:
                session.execute(text("DELETE FROM drive_record_link WHERE id = :id"), {"id": link_id})
            else:
                seen.add(item_id)
                session.execute(text("UPDATE drive_record_link SET record_id = :master WHERE id = :id"), {"master": master_id, "id": link_id})
                moved += 1
    return moved


__all__ = ["repoint_other_apps", "FIELDS", "MAX_RECORDS", "MergeError", "MergeResult", "can_merge", "check_selection", "merge_records"]
