"""The list views of each CRM object: fields, default columns and saved views (Salesforce defaults)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, time

from sqlalchemy.orm import aliased

from . import picklists as P
from .listing import ListField, ListSpec, ListView, ViewContext, month_bounds, owner_alias, person_name, week_start
from .models import Account, Case, Contact, Lead, Opportunity, RecordType
from .recordtypes import options as record_types

OWNER = owner_alias()
ACCT = aliased(Account, name="acct")
CT = aliased(Contact, name="ct")
RT = aliased(RecordType, name="rtype")
OWNER_NAME = person_name(OWNER)
CONTACT_NAME = person_name(CT)


def _owner(label: str) -> ListField:
    return ListField("owner", label, OWNER_NAME, "user", extra=True)


def _account() -> ListField:
    return ListField("account", "Account Name", ACCT.name, "lookup", link="account", link_id="account_id", extra=True)


def _created(label: str = "Created Date") -> ListField:
    return ListField("created_at", label, None, "datetime")


def _fields(model: type, *fields: ListField) -> dict[str, ListField]:
    """Index fields by key; a field without an expression reads the model column of that name."""
    out = {}
    for f in fields:
        if f.expr is None:
            f = replace(f, expr=getattr(model, f.attr or f.key))
        out[f.key] = f
    return out


def _mine(model: type):
    return lambda ctx: [model.owner_id == ctx.user.id]


def _created_since(model: type, start):
    return lambda ctx: [model.created_at >= datetime.combine(start(ctx), time.min)]


def _recent(plural: str) -> ListView:
    return ListView("recent", "Recently Viewed", f"recently viewed {plural}", recent=True)


# -- Accounts ------------------------------------------------------------------------------------
ACCOUNTS = ListSpec(
    object_key="account",
    model=Account,
    fields=_fields(
        Account,
        ListField("name", "Account Name", None, "name", link="self"),
        ListField("billing_city", "Billing City", None),
        ListField("billing_state", "Billing State/Province", None),
        ListField("billing_country", "Billing Country", None),
        ListField("phone", "Phone", None, "phone"),
        ListField("website", "Website", None, "url"),
        ListField("type", "Type", None, "picklist", tuple(P.ACCOUNT_TYPES)),
        ListField("industry", "Industry", None, "picklist", tuple(P.INDUSTRIES)),
        ListField("rating", "Rating", None, "picklist", tuple(P.RATINGS)),
        ListField("annual_revenue", "Annual Revenue", None, "money"),
        ListField("employees", "Employees", None, "number"),
        _owner("Account Owner"),
        _created(),
    ),
    columns=("name", "billing_city", "billing_state", "phone", "type", "industry", "owner"),
    search=(Account.name, Account.phone, Account.website, Account.billing_city, Account.billing_state),
    views=(
        ListView("all", "All Accounts", "all accounts"),
        ListView("mine", "My Accounts", "my accounts", where=_mine(Account)),
        ListView("new_this_week", "New This Week", "all accounts - Created This Week", where=_created_since(Account, lambda c: week_start(c.clock)), sort=("created_at", "desc")),
        _recent("accounts"),
    ),
    default_view="all",
    default_sort=("name", "asc"),
    extras=(OWNER_NAME.label("owner"),),
    joins=((OWNER, OWNER.id == Account.owner_id),),
)

# -- Contacts -------------------------------------------------------------------------------------
CONTACTS = ListSpec(
    object_key="contact",
    model=Contact,
    fields=_fields(
        Contact,
        ListField("name", "Name", person_name(Contact), "name", link="self"),
        _account(),
        ListField("title", "Title", None),
        ListField("department", "Department", None),
        ListField("phone", "Phone", None, "phone"),
        ListField("mobile", "Mobile", None, "phone"),
        ListField("email", "Email", None, "email"),
        ListField("lead_source", "Lead Source", None, "picklist", tuple(P.LEAD_SOURCES)),
        ListField("mailing_city", "Mailing City", None),
        ListField("mailing_state", "Mailing State/Province", None),
        ListField("mailing_country", "Mailing Country", None),
        _owner("Contact Owner"),
        _created(),
    ),
    columns=("name", "account", "title", "phone", "email", "owner"),
    search=(person_name(Contact), Contact.email, Contact.phone, Contact.title, ACCT.name),
    views=(
        ListView("all", "All Contacts", "all contacts"),
        ListView("mine", "My Contacts", "my contacts", where=_mine(Contact)),
        ListView("new_this_week", "New This Week", "all contacts - Created This Week", where=_created_since(Contact, lambda c: week_start(c.clock)), sort=("created_at", "desc")),
        _recent("contacts"),
    ),
    default_view="all",
    default_sort=("name", "asc"),
    extras=(OWNER_NAME.label("owner"), ACCT.name.label("account")),
    joins=((OWNER, OWNER.id == Contact.owner_id), (ACCT, ACCT.id == Contact.account_id)),
)

# -- Leads ----------------------------------------------------------------------------------------
_open_lead = lambda ctx: [Lead.status.in_(P.LEAD_OPEN_STATUSES)]  # noqa: E731

LEADS = ListSpec(
    object_key="lead",
    model=Lead,
    fields=_fields(
        Lead,
        ListField("name", "Name", person_name(Lead), "name", link="self"),
        ListField("title", "Title", None),
        ListField("company", "Company", None),
        ListField("status", "Lead Status", None, "picklist", tuple(P.LEAD_STATUSES)),
        ListField("source", "Lead Source", None, "picklist", tuple(P.LEAD_SOURCES)),
        ListField("rating", "Rating", None, "picklist", tuple(P.RATINGS)),
        ListField("industry", "Industry", None, "picklist", tuple(P.INDUSTRIES)),
        ListField("email", "Email", None, "email"),
        ListField("phone", "Phone", None, "phone"),
        ListField("city", "City", None),
        ListField("state", "State/Province", None),
        ListField("country", "Country", None),
        ListField("annual_revenue", "Annual Revenue", None, "money"),
        ListField("employees", "No. of Employees", None, "number"),
        _owner("Lead Owner"),
        _created(),
    ),
    columns=("name", "title", "company", "state", "email", "status", "created_at", "owner"),
    search=(person_name(Lead), Lead.company, Lead.email, Lead.phone, Lead.title),
    views=(
        ListView("all_open", "All Open Leads", "all leads - Lead Status", where=_open_lead),
        ListView("my_open", "My Open Leads", "my leads - Lead Status", where=lambda ctx: [Lead.owner_id == ctx.user.id, *_open_lead(ctx)]),
        ListView("today", "Today's Leads", "all leads - Created Today", where=_created_since(Lead, lambda c: c.clock.today), sort=("created_at", "desc")),
        ListView("all", "All Leads", "all leads"),
        _recent("leads"),
    ),
    default_view="all_open",
    default_sort=("name", "asc"),
    extras=(OWNER_NAME.label("owner"),),
    joins=((OWNER, OWNER.id == Lead.owner_id),),
)

# -- Opportunities ---------------------------------------------------------------------------------


def _closing_this_month(ctx: ViewContext) -> list:
    start, end = month_bounds(ctx.clock)
    return [Opportunity.close_date >= start, Opportunity.close_date <= end]


OPPORTUNITIES = ListSpec(
    object_key="opportunity",
    model=Opportunity,
    fields=_fields(
        Opportunity,
        ListField("name", "Opportunity Name", None, "name", link="self"),
        _account(),
        ListField("amount", "Amount", None, "money"),
        ListField("close_date", "Close Date", None, "date"),
        ListField("stage", "Stage", None, "picklist", tuple(P.STAGE_NAMES)),
        ListField("probability", "Probability (%)", None, "percent"),
        ListField("type", "Type", None, "picklist", tuple(P.OPPORTUNITY_TYPES)),
        ListField("lead_source", "Lead Source", None, "picklist", tuple(P.LEAD_SOURCES)),
        ListField("forecast_category", "Forecast Category", None, "picklist", tuple(dict.fromkeys(P.STAGE_FORECAST.values()))),
        ListField("next_step", "Next Step", None),
        ListField("record_type", "Opportunity Record Type", RT.name, "picklist", extra=True, source=record_types("opportunity")),
        _owner("Opportunity Owner"),
        _created(),
    ),
    columns=("name", "account", "amount", "close_date", "stage", "owner"),
    search=(Opportunity.name, ACCT.name, Opportunity.next_step),
    views=(
        ListView("all", "All Opportunities", "all opportunities"),
        ListView("mine", "My Opportunities", "my opportunities", where=_mine(Opportunity)),
        ListView("open", "Open Opportunities", "all opportunities - Stage", where=lambda ctx: [Opportunity.stage.in_(P.OPEN_STAGES)]),
        ListView("closing_this_month", "Closing This Month", "all opportunities - Close Date", where=_closing_this_month, sort=("close_date", "asc")),
        ListView("won", "Won", "all opportunities - Stage", where=lambda ctx: [Opportunity.stage == "Closed Won"], sort=("close_date", "desc")),
        _recent("opportunities"),
    ),
    default_view="all",
    default_sort=("name", "asc"),
    extras=(OWNER_NAME.label("owner"), ACCT.name.label("account"), RT.name.label("record_type")),
    joins=((OWNER, OWNER.id == Opportunity.owner_id), (ACCT, ACCT.id == Opportunity.account_id), (RT, RT.id == Opportunity.record_type_id)),
)

# -- Cases ------------------------------------------------------------------------------------------
_open_case = lambda ctx: [Case.status.in_(P.CASE_OPEN_STATUSES)]  # noqa: E731

CASES = ListSpec(
    object_key="case",
    model=Case,
    fields=_fields(
        Case,
        ListField("case_number", "Case Number", None, "text", link="self"),
        ListField("contact", "Contact Name", CONTACT_NAME, "lookup", link="contact", link_id="contact_id", extra=True),
        _account(),
        ListField("subject", "Subject", None, "text", link="self"),
        ListField("status", "Status", None, "picklist", tuple(P.CASE_STATUSES)),
        ListField("priority", "Priority", None, "picklist", tuple(P.CASE_PRIORITIES)),
        ListField("origin", "Case Origin", None, "picklist", tuple(P.CASE_ORIGINS)),
        ListField("type", "Type", None, "picklist", tuple(P.CASE_TYPES)),
        ListField("reason", "Case Reason", None, "picklist", tuple(P.CASE_REASONS)),
        _created("Date/Time Opened"),
        ListField("closed_at", "Date/Time Closed", None, "datetime"),
        ListField("record_type", "Case Record Type", RT.name, "picklist", extra=True, source=record_types("case")),
        _owner("Case Owner"),
    ),
    columns=("case_number", "contact", "account", "subject", "status", "priority", "created_at", "owner"),
    search=(Case.case_number, Case.subject, CONTACT_NAME, ACCT.name),
    views=(
        ListView("all_open", "All Open Cases", "all cases - Status", where=_open_case),
        ListView("my_open", "My Open Cases", "my cases - Status", where=lambda ctx: [Case.owner_id == ctx.user.id, *_open_case(ctx)]),
        ListView("escalated", "Escalated", "all cases - Status", where=lambda ctx: [Case.status == "Escalated"]),
        ListView("closed", "Closed", "all cases - Status", where=lambda ctx: [Case.status == "Closed"], sort=("closed_at", "desc")),
        ListView("all", "All Cases", "all cases"),
        _recent("cases"),
    ),
    default_view="all_open",
    default_sort=("case_number", "desc"),
    extras=(OWNER_NAME.label("owner"), ACCT.name.label("account"), CONTACT_NAME.label("contact"), RT.name.label("record_type")),
    joins=((OWNER, OWNER.id == Case.owner_id), (ACCT, ACCT.id == Case.account_id), (CT, CT.id == Case.contact_id), (RT, RT.id == Case.record_type_id)),
)

SPECS: dict[str, ListSpec] = {s.object_key: s for s in (ACCOUNTS, CONTACTS, LEADS, OPPORTUNITIES, CASES)}

__all__ = ["ACCOUNTS", "CASES", "CONTACTS", "LEADS", "OPPORTUNITIES", "SPECS"]
