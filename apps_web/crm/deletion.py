"""Deleting CRM records with Salesforce's cascade semantics, shared by the UI and the JSON API.

- Account: its contacts, opportunities and cases go with it (and everything that goes with those);
  child accounts stay and lose their parent.
- Contact, opportunity, case, lead: their activities and notes go with them; an opportunity also
  loses its contact roles, and a contact is removed from the roles it played.
- Lookups from surviving records to a deleted one are cleared (a case's contact, a contact's
  reports-to, an activity's contact, a converted lead's links), so foreign keys always hold.
- Activity, note: only the record itself.

``deletion_plan`` says what would go (for a confirmation dialog); ``delete_record`` does it. The
caller commits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import delete, or_, select, update
from sqlmodel import Session

from .models import (Account, Activity, ApprovalRequest, CampaignMember, Case, Contact, FieldHistory, Lead, Note, Opportunity, OpportunityContactRole,
                     OpportunityLineItem, Quote, QuoteLineItem, RecentView)

MODELS: dict[str, type] = {
    "account": Account, "contact": Contact, "lead": Lead, "opportunity": Opportunity, "case": Case, "activity": Activity, "note": Note,
}
# Objects that activities and notes can be about.
RELATED = ("account", "contact", "lead", "opportunity", "case")


@dataclass
class DeletionPlan:
    """Ids of the records a deletion removes, per object key (the target included)."""

    ids: dict[str, list[int]] = field(default_factory=dict)
    contact_roles: list[int] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {key: len(ids) for key, ids in self.ids.items() if ids}

    def cascaded(self, object_key: str) -> dict[str, int]:
        """What goes besides the record itself, e.g. {"contact": 4, "opportunity": 2}."""
        counts = self.counts()
        counts[object_key] = counts.get(object_key, 1) - 1
        return {k: n for k, n in counts.items() if n}


def _ids(session: Session, column, condition) -> list[int]:
    return list(session.execute(select(column).where(condition).order_by(column)).scalars())


def deletion_plan(session: Session, object_key: str, record_id: int) -> DeletionPlan:
    if object_key not in MODELS:
        raise KeyError(f"unknown CRM object {object_key!r}")
    plan = DeletionPlan(ids={key: [] for key in MODELS})
    plan.ids[object_key] = [record_id]
    if object_key == "account":
        plan.ids["contact"] = _ids(session, Contact.id, Contact.account_id == record_id)
        plan.ids["opportunity"] = _ids(session, Opportunity.id, Opportunity.account_id == record_id)
        plan.ids["case"] = _ids(session, Case.id, Case.account_id == record_id)
    if plan.ids["opportunity"] or plan.ids["contact"]:
        plan.contact_roles = _ids(session, OpportunityContactRole.id, or_(
            OpportunityContactRole.opportunity_id.in_(plan.ids["opportunity"]),
            OpportunityContactRole.contact_id.in_(plan.ids["contact"]),
        ))
    if object_key in RELATED:
        about = [(key, ids) for key, ids in plan.ids.items() if key in RELATED and ids]
        for model, key in ((Activity, "activity"), (Note, "note")):
            conditions = [(model.related_type == rel) & model.related_id.in_(ids) for rel, ids in about]
            plan.ids[key] = _ids(session, model.id, or_(*conditions))
    return plan


def delete_record(session: Session, object_key: str, record_id: int) -> dict[str, int]:
    """Delete a record and what goes with it; returns how many records of each object went."""
    plan = deletion_plan(session, object_key, record_id)
    ids = plan.ids
    gone_contacts, gone_opps, gone_accounts = ids["contact"], ids["opportunity"], ids["account"]
    # 1. Survivors stop pointing at what goes.
    if gone_accounts:
        session.execute(update(Account).where(Account.parent_id.in_(gone_accounts)).values(parent_id=None))
        session.execute(update(Lead).where(Lead.converted_account_id.in_(gone_accounts)).values(converted_account_id=None))
    if gone_contacts:
        session.execute(update(Contact).where(Contact.reports_to_id.in_(gone_contacts)).values(reports_to_id=None))
        session.execute(update(Case).where(Case.contact_id.in_(gone_contacts)).values(contact_id=None))
        session.execute(update(Activity).where(Activity.contact_id.in_(gone_contacts)).values(contact_id=None))
        session.execute(update(Lead).where(Lead.converted_contact_id.in_(gone_contacts)).values(converted_contact_id=None))
    if gone_opps:
        session.execute(update(Lead).where(Lead.converted_opportunity_id.in_(gone_opps)).values(converted_opportunity_id=None))
        # A deal's products and quotes (with their lines and approval steps) go with it, as in Salesforce.
        quotes = select(Quote.id).where(Quote.opportunity_id.in_(gone_opps))
        session.execute(delete(ApprovalRequest).where(ApprovalRequest.quote_id.in_(quotes)))
        session.execute(delete(QuoteLineItem).where(QuoteLineItem.quote_id.in_(quotes)))
        session.execute(delete(Quote).where(Quote.opportunity_id.in_(gone_opps)))
        session.execute(delete(OpportunityLineItem).where(OpportunityLineItem.opportunity_id.in_(gone_opps)))
        session.execute(delete(FieldHistory).where(FieldHistory.object_type == "opportunity", FieldHistory.record_id.in_(gone_opps)))
    if gone_accounts:  # quotes of the account's deals went above; none other points at it
        session.execute(update(Quote).where(Quote.account_id.in_(gone_accounts)).values(account_id=None))
    if ids["case"]:
        session.execute(delete(FieldHistory).where(FieldHistory.object_type == "case", FieldHistory.record_id.in_(ids["case"])))
    # Campaign memberships of the people who go.
    if gone_contacts:
        session.execute(delete(CampaignMember).where(CampaignMember.contact_id.in_(gone_contacts)))
    if ids["lead"]:
        session.execute(delete(CampaignMember).where(CampaignMember.lead_id.in_(ids["lead"])))
    # 2. Children before parents.
    if plan.contact_roles:
        session.execute(delete(OpportunityContactRole).where(OpportunityContactRole.id.in_(plan.contact_roles)))
    for key in ("note", "activity", "case", "opportunity", "contact", "lead", "account"):
        if ids[key]:
            model = MODELS[key]
            session.execute(delete(model).where(model.id.in_(ids[key])))
            # Bookkeeping: a recently-viewed entry of a deleted record would only be skipped later.
            session.execute(delete(RecentView).where(RecentView.object_type == key, RecentView.record_id.in_(ids[key])))
    session.expire_all()  # ORM objects loaded before the bulk statements are stale now
    return plan.counts()


__all__ = ["DeletionPlan", "delete_record", "deletion_plan"]
