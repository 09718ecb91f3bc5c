"""CRM objects. Tables are prefixed ``crm_``; owners are users of the shared identity.

Picklist fields are plain strings (validated against ``picklists``) so that the database and the
verifiers see the same human values the UI shows ("Closed Won", not an enum name).
Datetimes are naive wall-clock times of the world clock (``NaiveDatetime``: SQLModel would otherwise
demand timezone-aware values).
"""

from __future__ import annotations

from datetime import date

from pydantic import NaiveDatetime
from sqlmodel import Field, SQLModel

USER_FK = "identity_user.id"


class Timestamps(SQLModel):
    created_at: NaiveDatetime | None = None
    updated_at: NaiveDatetime | None = None  # bookkeeping: verifiers ignore it
    created_by_id: int | None = Field(default=None, foreign_key=USER_FK)


# -- Account ---------------------------------------------------------------------------------------
class AccountBase(SQLModel):
    name: str = Field(index=True, max_length=255)
    type: str | None = Field(default=None, max_length=40)
    industry: str | None = Field(default=None, max_length=40)
    rating: str | None = Field(default=None, max_length=10)
    annual_revenue: float | None = None
    employees: int | None = None
    phone: str | None = Field(default=None, max_length=40)
    website: str | None = Field(default=None, max_length=255)
    billing_street: str | None = Field(default=None, max_length=255)
    billing_city: str | None = Field(default=None, max_length=80)
    billing_state: str | None = Field(default=None, max_length=80)
    billing_postal_code: str | None = Field(default=None, max_length=20)
    billing_country: str | None = Field(default=None, max_length=80)
    shipping_street: str | None = Field(default=None, max_length=255)
    shipping_city: str | None = Field(default=None, max_length=80)
    shipping_state: str | None = Field(default=None, max_length=80)
    shipping_postal_code: str | None = Field(default=None, max_length=20)
    shipping_country: str | None = Field(default=None, max_length=80)
    description: str | None = None
    owner_id: int | None = Field(default=None, foreign_key=USER_FK, index=True)
    parent_id: int | None = Field(default=None, foreign_key="crm_account.id")
    territory_id: int | None = Field(default=None, foreign_key="crm_territory.id", index=True)


class Account(AccountBase, Timestamps, table=True):
    __tablename__ = "crm_account"
    id: int | None = Field(default=None, primary_key=True)


# -- Contact ---------------------------------------------------------------------------------------
class ContactBase(SQLModel):
    salutation: str | None = Field(default=None, max_length=10)
    first_name: str | None = Field(default=None, max_length=80)
    last_name: str = Field(index=True, max_length=80)
    title: str | None = Field(default=None, max_length=128)
    department: str | None = Field(default=None, max_length=80)
    email: str | None = Field(default=None, max_length=254, index=True)
    phone: str | None = Field(default=None, max_length=40)
    mobile: str | None = Field(default=None, max_length=40)
    account_id: int | None = Field(default=None, foreign_key="crm_account.id", index=True)
    reports_to_id: int | None = Field(default=None, foreign_key="crm_contact.id")
    lead_source: str | None = Field(default=None, max_length=40)
    mailing_city: str | None = Field(default=None, max_length=80)
    mailing_state: str | None = Field(default=None, max_length=80)
    mailing_country: str | None = Field(default=None, max_length=80)
    description: str | None = None
    owner_id: int | None = Field(default=None, foreign_key=USER_FK, index=True)


class Contact(ContactBase, Timestamps, table=True):
    __tablename__ = "crm_contact"
    id: int | None = Field(default=None, primary_key=True)

    @property
    def name(self) -> str:
        return f"{self.first_name} {self.last_name}" if self.first_name else self.last_name


# -- Lead --------------------------------------------------------------------------------------------
class LeadBase(SQLModel):
    salutation: str | None = Field(default=None, max_length=10)
    first_name: str | None = Field(default=None, max_length=80)
    last_name: str = Field(index=True, max_length=80)
    company: str = Field(index=True, max_length=255)
    title: str | None = Field(default=None, max_length=128)
    status: str = Field(default="Open - Not Contacted", max_length=40, index=True)
    source: str | None = Field(default=None, max_length=40)
    rating: str | None = Field(default=None, max_length=10)
    industry: str | None = Field(default=None, max_length=40)
    email: str | None = Field(default=None, max_length=254)
    phone: str | None = Field(default=None, max_length=40)
    annual_revenue: float | None = None
    employees: int | None = None
    city: str | None = Field(default=None, max_length=80)
    state: str | None = Field(default=None, max_length=80)
    country: str | None = Field(default=None, max_length=80)
    description: str | None = None
    owner_id: int | None = Field(default=None, foreign_key=USER_FK, index=True)


class Lead(LeadBase, Timestamps, table=True):
    __tablename__ = "crm_lead"
    id: int | None = Field(default=None, primary_key=True)
    converted_account_id: int | None = Field(default=None, foreign_key="crm_account.id")
    converted_contact_id: int | None = Field(default=None, foreign_key="crm_contact.id")
    converted_opportunity_id: int | None = Field(default=None, foreign_key="crm_opportunity.id")
    converted_at: NaiveDatetime | None = None

    @property
    def name(self) -> str:
        return f"{self.first_name} {self.last_name}" if self.first_name else self.last_name


# -- Record types (Setup > Object Manager > Opportunity/Case > Record Types) -----------------------------------
class RecordType(SQLModel, table=True):
    """A record type of opportunities or cases: the picklist values a record of it may take (its
    sales or support process, ``recordtypes.py``) and the descriptions the "New" chooser shows."""

    __tablename__ = "crm_record_type"
    id: int | None = Field(default=None, primary_key=True)
    object_type: str = Field(max_length=20, index=True)  # opportunity | case
    name: str = Field(max_length=80)  # "Renewal"
    developer_name: str = Field(max_length=80)  # "Renewal"
    description: str | None = Field(default=None, max_length=255)
    active: bool = True
    is_default: bool = False  # the org's default (the System Administrator's); each profile has its own below


class RecordTypeValue(SQLModel, table=True):
    """A picklist value a record type makes available (Setup > Record Types > a picklist's Edit: Available
    Values / Default): the stages of an opportunity type's sales process, the reasons of a case type."""

    __tablename__ = "crm_record_type_value"
    id: int | None = Field(default=None, primary_key=True)
    record_type_id: int = Field(foreign_key="crm_record_type.id", index=True)
    field: str = Field(max_length=40)  # stage | reason
    value: str = Field(max_length=80)
    sort_order: int = 0  # the master picklist's order
    is_default: bool = False  # preselected in a new record of this type


class RecordTypeAssignment(SQLModel, table=True):
    """Profile > Record Type Settings: a record type a profile (``identity_user.role``) may create and
    change records to, and whether it is the profile's default for its object."""

    __tablename__ = "crm_record_type_assignment"
    id: int | None = Field(default=None, primary_key=True)
    profile: str = Field(max_length=30, index=True)  # a Role value: sales_rep, finance...
    record_type_id: int = Field(foreign_key="crm_record_type.id", index=True)
    is_default: bool = False


# -- Opportunity -------------------------------------------------------------------------------------
class OpportunityBase(SQLModel):
    name: str = Field(index=True, max_length=120)
    account_id: int | None = Field(default=None, foreign_key="crm_account.id", index=True)
    amount: float | None = None
    stage: str = Field(default="Prospecting", max_length=40, index=True)
    probability: int | None = None  # percent
    close_date: date
    type: str | None = Field(default=None, max_length=40)
    lead_source: str | None = Field(default=None, max_length=40)
    next_step: str | None = Field(default=None, max_length=255)
    forecast_category: str | None = Field(default=None, max_length=20)
    description: str | None = None
    owner_id: int | None = Field(default=None, foreign_key=USER_FK, index=True)
    loss_reason: str | None = Field(default=None, max_length=40)  # required when Closed Lost
    main_competitors: str | None = Field(default=None, max_length=255)
    campaign_id: int | None = Field(default=None, foreign_key="crm_campaign.id", index=True)  # Primary Campaign Source
    record_type_id: int | None = Field(default=None, foreign_key="crm_record_type.id", index=True)  # its sales process (recordtypes.py)


class Opportunity(OpportunityBase, Timestamps, table=True):
    __tablename__ = "crm_opportunity"
    id: int | None = Field(default=None, primary_key=True)
    pricebook_id: int | None = Field(default=None, foreign_key="crm_pricebook.id")  # set by the first product added


class OpportunityContactRole(SQLModel, table=True):
    __tablename__ = "crm_opportunity_contact_role"
    id: int | None = Field(default=None, primary_key=True)
    opportunity_id: int = Field(foreign_key="crm_opportunity.id", index=True)
    contact_id: int = Field(foreign_key="crm_contact.id", index=True)
    role: str | None = Field(default=None, max_length=40)
    is_primary: bool = False


# -- Case ------------------------------------------------------------------------------------------
class CaseBase(SQLModel):
    subject: str = Field(max_length=255)
    status: str = Field(default="New", max_length=40, index=True)
    priority: str = Field(default="Medium", max_length=20)
    origin: str | None = Field(default=None, max_length=20)
    type: str | None = Field(default=None, max_length=40)
    reason: str | None = Field(default=None, max_length=40)
    account_id: int | None = Field(default=None, foreign_key="crm_account.id", index=True)
    contact_id: int | None = Field(default=None, foreign_key="crm_contact.id", index=True)
    description: str | None = None
    owner_id: int | None = Field(default=None, foreign_key=USER_FK, index=True)
    record_type_id: int | None = Field(default=None, foreign_key="crm_record_type.id", index=True)  # its support process (recordtypes.py)


class Case(CaseBase, Timestamps, table=True):
    __tablename__ = "crm_case"
    id: int | None = Field(default=None, primary_key=True)
    case_number: str = Field(index=True, unique=True, max_length=12)  # e.g. "00001001"
    closed_at: NaiveDatetime | None = None


# -- Activity (task, call, meeting) ----------------------------------------------------------------------
class ActivityBase(SQLModel):
    kind: str = Field(default="task", max_length=10, index=True)  # task | call | meeting
    subject: str = Field(max_length=255)
    status: str = Field(default="Not Started", max_length=40)
    priority: str = Field(default="Normal", max_length=10)
    due_date: date | None = None
    start_at: NaiveDatetime | None = None  # meetings
    end_at: NaiveDatetime | None = None
    location: str | None = Field(default=None, max_length=255)
    call_duration_min: int | None = None
    call_result: str | None = Field(default=None, max_length=40)
    description: str | None = None
    related_type: str | None = Field(default=None, max_length=20)  # account | contact | lead | opportunity | case
    related_id: int | None = Field(default=None, index=True)
    contact_id: int | None = Field(default=None, foreign_key="crm_contact.id")
    assignee_id: int | None = Field(default=None, foreign_key=USER_FK, index=True)


class Activity(ActivityBase, Timestamps, table=True):
    __tablename__ = "crm_activity"
    id: int | None = Field(default=None, primary_key=True)
    completed_at: NaiveDatetime | None = None


# -- Note ----------------------------------------------------------------------------------------------
class NoteBase(SQLModel):
    title: str = Field(max_length=255)
    body: str | None = None
    related_type: str = Field(max_length=20)
    related_id: int = Field(index=True)
    owner_id: int | None = Field(default=None, foreign_key=USER_FK)


class Note(NoteBase, Timestamps, table=True):
    __tablename__ = "crm_note"
    id: int | None = Field(default=None, primary_key=True)


# -- Recently viewed (bookkeeping: verifiers ignore this table) -------------------------------------------
class RecentView(SQLModel, table=True):
    __tablename__ = "crm_recent_view"
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key=USER_FK, index=True)
    object_type: str = Field(max_length=20)
    record_id: int


TABLES = {
    "account": Account,
    "contact": Contact,
    "lead": Lead,
    "opportunity": Opportunity,
    "case": Case,
    "activity": Activity,
    "note": Note,
}


# -- Products and price books ---------------------------------------------------------------------------
class Product(SQLModel, table=True):
    __tablename__ = "crm_product"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, max_length=255)
    product_code: str | None = Field(default=None, max_length=40)
    family: str | None = Field(default=None, max_length=40)
    is_active: bool = True
    quantity_unit: str | None = Field(default=None, max_length=20)  # seats, units, days...
    description: str | None = None


class Pricebook(SQLModel, table=True):
    __tablename__ = "crm_pricebook"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=255)
    is_standard: bool = False
    is_active: bool = True
    description: str | None = None


class PricebookEntry(SQLModel, table=True):
    __tablename__ = "crm_pricebook_entry"
    id: int | None = Field(default=None, primary_key=True)
    pricebook_id: int = Field(foreign_key="crm_pricebook.id", index=True)
    product_id: int = Field(foreign_key="crm_product.id", index=True)
    unit_price: float  # the list price
    is_active: bool = True


class LineItemBase(SQLModel):
    product_id: int = Field(foreign_key="crm_product.id")
    quantity: float
    list_price: float | None = None
    unit_price: float  # the sales price
    discount: float | None = None  # percent
    total_price: float  # quantity x sales price less the discount
    description: str | None = Field(default=None, max_length=255)
    sort_order: int = 0


class OpportunityLineItem(LineItemBase, Timestamps, table=True):
    """An opportunity product; the opportunity's amount is the sum of its lines' total prices."""

    __tablename__ = "crm_opportunity_line_item"
    id: int | None = Field(default=None, primary_key=True)
    opportunity_id: int = Field(foreign_key="crm_opportunity.id", index=True)
    pricebook_entry_id: int | None = Field(default=None, foreign_key="crm_pricebook_entry.id")


# -- Quotes and their approval -----------------------------------------------------------------------------
class Quote(Timestamps, table=True):
    __tablename__ = "crm_quote"
    id: int | None = Field(default=None, primary_key=True)
    quote_number: str = Field(index=True, unique=True, max_length=12)  # "00000123"
    name: str = Field(max_length=255)
    opportunity_id: int = Field(foreign_key="crm_opportunity.id", index=True)
    account_id: int | None = Field(default=None, foreign_key="crm_account.id")
    pricebook_id: int | None = Field(default=None, foreign_key="crm_pricebook.id")
    status: str = Field(default="Draft", max_length=20, index=True)
    expiration_date: date | None = None
    subtotal: float = 0.0  # list of sales prices before discounts
    total_price: float = 0.0
    description: str | None = None
    owner_id: int | None = Field(default=None, foreign_key=USER_FK, index=True)


class QuoteLineItem(LineItemBase, table=True):
    __tablename__ = "crm_quote_line_item"
    id: int | None = Field(default=None, primary_key=True)
    quote_id: int = Field(foreign_key="crm_quote.id", index=True)


class ApprovalRequest(SQLModel, table=True):
    """One step of a quote's approval process: who asked, who must decide, and what they decided."""

    __tablename__ = "crm_approval_request"
    id: int | None = Field(default=None, primary_key=True)
    quote_id: int = Field(foreign_key="crm_quote.id", index=True)
    status: str = Field(default="Pending", max_length=20, index=True)  # Pending Approved Rejected Recalled
    submitter_id: int = Field(foreign_key=USER_FK)
    approver_id: int = Field(foreign_key=USER_FK, index=True)
    submitted_at: NaiveDatetime
    submit_comments: str | None = None
    decided_at: NaiveDatetime | None = None
    comments: str | None = None  # the approver's


# -- Territories ---------------------------------------------------------------------------------------------
class Territory(SQLModel, table=True):
    __tablename__ = "crm_territory"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80, unique=True)  # AMER-East, EMEA...
    description: str | None = None


class UserTerritory(SQLModel, table=True):
    """A user's assignment to a territory (a user may cover several)."""

    __tablename__ = "crm_user_territory"
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key=USER_FK, index=True)
    territory_id: int = Field(foreign_key="crm_territory.id", index=True)


# -- Field history (bookkeeping written on every save: verifiers' change sets ignore it) ----------------------
class FieldHistory(SQLModel, table=True):
    __tablename__ = "crm_field_history"
    id: int | None = Field(default=None, primary_key=True)
    object_type: str = Field(max_length=20)
    record_id: int = Field(index=True)
    field: str = Field(max_length=40)
    old_value: str | None = None
    new_value: str | None = None
    user_id: int | None = Field(default=None, foreign_key=USER_FK)
    changed_at: NaiveDatetime


# -- Email: templates and the messages sent from records ------------------------------------------------------
class EmailTemplate(SQLModel, table=True):
    """A Lightning email template: subject and body with merge fields such as ``{!Contact.FirstName}``."""

    __tablename__ = "crm_email_template"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=120)
    folder: str = Field(default="Sales Templates", max_length=80)
    related_object: str | None = Field(default=None, max_length=20)  # the record type its fields read (opportunity, case...)
    subject: str = Field(default="", max_length=255)
    html_body: str = ""
    description: str | None = Field(default=None, max_length=255)
    is_active: bool = True


class EmailMessage(Timestamps, table=True):
    """An email sent from a record (Salesforce's EmailMessage). The person it went to is the WhoId
    (``who_type`` + ``who_id``: a contact or lead), the record it is about the WhatId (``what_type`` +
    ``what_id``: an account, opportunity or case), and ``account_id`` the account it rolls up to.
    The delivered copies live in the mail app; ``internet_message_id`` joins them."""

    __tablename__ = "crm_email_message"
    id: int | None = Field(default=None, primary_key=True)
    subject: str = Field(default="", max_length=255)
    html_body: str = ""
    text_body: str = ""
    from_address: str = Field(max_length=254)
    from_name: str = Field(default="", max_length=160)
    to_address: str = ""  # "; "-separated addresses, as Salesforce's ToAddress
    cc_address: str = ""
    bcc_address: str = ""
    status: str = Field(default="Sent", max_length=20)
    incoming: bool = False
    message_date: NaiveDatetime
    related_type: str = Field(max_length=20)  # the record it was sent from
    related_id: int = Field(index=True)
    who_type: str | None = Field(default=None, max_length=20)  # contact | lead
    who_id: int | None = Field(default=None, index=True)
    what_type: str | None = Field(default=None, max_length=20)  # account | opportunity | case
    what_id: int | None = Field(default=None, index=True)
    account_id: int | None = Field(default=None, foreign_key="crm_account.id", index=True)
    template_id: int | None = Field(default=None, foreign_key="crm_email_template.id")
    internet_message_id: str = Field(default="", max_length=120, index=True)


# -- List views and reports people build (Salesforce's ListView and Report metadata) ---------------------------
class ListViewDef(Timestamps, table=True):
    """A list view a user saved: its columns (comma-separated field keys, in order), who sees it
    (``only_me`` or ``all_users``), the owner scope of its rows (``all`` or ``mine``), and its filter
    logic over the numbered rows of ``crm_list_view_filter`` ("1 AND (2 OR 3)"; empty: all ANDed)."""

    __tablename__ = "crm_list_view"
    id: int | None = Field(default=None, primary_key=True)
    object_type: str = Field(max_length=20, index=True)  # account | contact | lead | opportunity | case
    name: str = Field(max_length=40)
    api_name: str = Field(max_length=80)
    owner_id: int = Field(foreign_key=USER_FK, index=True)
    visibility: str = Field(default="only_me", max_length=20)  # only_me | all_users
    scope: str = Field(default="all", max_length=10)  # all | mine
    columns: str = ""  # "name,billing_city,industry"
    filter_logic: str | None = Field(default=None, max_length=255)


class ListViewFilter(SQLModel, table=True):
    """Filter number ``position`` (1-based, the number filter logic names) of a saved list view."""

    __tablename__ = "crm_list_view_filter"
    id: int | None = Field(default=None, primary_key=True)
    list_view_id: int = Field(foreign_key="crm_list_view.id", index=True)
    position: int
    field: str = Field(max_length=40)
    operator: str = Field(max_length=20)  # equals not_equal contains not_contains starts_with less greater...
    value: str = ""


class ListViewChart(Timestamps, table=True):
    """A chart of a list view's rows (List View Charts), kept for the user who made it and the view
    it was made on: ``view_key`` is a standard view's key ("all", "mine"...) or a saved one's ("lv12")."""

    __tablename__ = "crm_list_view_chart"
    id: int | None = Field(default=None, primary_key=True)
    object_type: str = Field(max_length=20, index=True)
    view_key: str = Field(max_length=40)
    owner_id: int = Field(foreign_key=USER_FK, index=True)
    name: str = Field(max_length=80)
    chart_type: str = Field(default="vertical_bar", max_length=20)  # vertical_bar | horizontal_bar | donut
    aggregate: str = Field(default="count", max_length=10)  # count | sum | average
    aggregate_field: str | None = Field(default=None, max_length=40)  # a number field (sum, average)
    group_field: str = Field(max_length=40)  # the field whose values are the bars / slices


class ReportFolder(Timestamps, table=True):
    """A report folder people created (Private Reports and Public Reports are built in)."""

    __tablename__ = "crm_report_folder"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80)
    owner_id: int = Field(foreign_key=USER_FK, index=True)


class ReportDef(Timestamps, table=True):
    """A report built in the report builder: its type, columns, up to three groupings, summaries
    (``amount:sum,probability:avg``), chart, and folder (``Private Reports``, ``Public Reports`` or
    the name of a ``crm_report_folder``). Filters are the rows of ``crm_report_filter``."""

    __tablename__ = "crm_report"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80)
    api_name: str = Field(max_length=80)
    description: str | None = Field(default=None, max_length=255)
    report_type: str = Field(max_length=40)  # opportunities | accounts | cases | leads | contacts
    folder: str = Field(default="Private Reports", max_length=80)
    folder_id: int | None = Field(default=None, foreign_key="crm_report_folder.id")
    owner_id: int = Field(foreign_key=USER_FK, index=True)
    columns: str = ""  # comma-separated field keys
    groupings: str = ""  # up to three field keys, outermost first
    summaries: str = ""  # "amount:sum,amount:avg"
    chart: str = Field(default="none", max_length=20)  # none | bar | column | donut
    filter_logic: str | None = Field(default=None, max_length=255)


class ReportFilter(SQLModel, table=True):
    __tablename__ = "crm_report_filter"
    id: int | None = Field(default=None, primary_key=True)
    report_id: int = Field(foreign_key="crm_report.id", index=True)
    position: int
    field: str = Field(max_length=40)
    operator: str = Field(max_length=20)
    value: str = ""


# -- Dashboards (Salesforce's Dashboard, DashboardComponent and dashboard filters) -----------------------------
class DashboardFolder(Timestamps, table=True):
    """A dashboard folder (Private Dashboards and Public Dashboards are built in). Every internal user
    sees its dashboards; ``access`` is what they may do there besides its owner: ``Viewer`` (read only)
    or ``Editor`` (create, edit and delete dashboards in it)."""

    __tablename__ = "crm_dashboard_folder"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80)
    owner_id: int = Field(foreign_key=USER_FK, index=True)
    access: str = Field(default="Viewer", max_length=10)  # Viewer | Editor


class Dashboard(Timestamps, table=True):
    """A dashboard: its folder (``Private Dashboards``, ``Public Dashboards`` or the name of a
    ``crm_dashboard_folder``), its components (``crm_dashboard_component``) and the filters a viewer
    applies to every component (``crm_dashboard_filter``)."""

    __tablename__ = "crm_dashboard"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80)
    description: str | None = Field(default=None, max_length=255)
    folder: str = Field(default="Private Dashboards", max_length=80)
    folder_id: int | None = Field(default=None, foreign_key="crm_dashboard_folder.id")
    owner_id: int = Field(foreign_key=USER_FK, index=True)
    # "View dashboard as": whose record access the components run with (None: the owner), as in Salesforce.
    running_user_id: int | None = Field(default=None, foreign_key=USER_FK)


class DashboardComponent(SQLModel, table=True):
    """Component number ``position`` (1-based, top to bottom) of a dashboard. Its source is a saved
    report (``report_id``) or a standard report (``standard_report``, e.g. ``pipeline-by-stage-and-owner``);
    ``group_by`` is the field its bars, slices or rows group by and ``measure`` what each shows
    (``count`` or ``field:agg`` such as ``amount:sum``). A gauge's segments run from ``min_value`` to
    ``breakpoint1`` (red), to ``breakpoint2`` (yellow) and to ``max_value`` (green)."""

    __tablename__ = "crm_dashboard_component"
    id: int | None = Field(default=None, primary_key=True)
    dashboard_id: int = Field(foreign_key="crm_dashboard.id", index=True)
    position: int
    title: str = Field(default="", max_length=80)
    report_id: int | None = Field(default=None, foreign_key="crm_report.id")
    standard_report: str | None = Field(default=None, max_length=60)
    display: str = Field(max_length=20)  # bar | column | donut | gauge | metric | table
    group_by: str | None = Field(default=None, max_length=40)
    measure: str = Field(default="count", max_length=40)
    max_rows: int | None = None  # a table's (and a bar chart's) top N
    min_value: float | None = None
    breakpoint1: float | None = None
    breakpoint2: float | None = None
    max_value: float | None = None


class DashboardFilter(SQLModel, table=True):
    """Filter number ``position`` of a dashboard: a field every component is filtered by when a viewer
    picks a value (``owner``, ``territory`` or ``close_date``)."""

    __tablename__ = "crm_dashboard_filter"
    id: int | None = Field(default=None, primary_key=True)
    dashboard_id: int = Field(foreign_key="crm_dashboard.id", index=True)
    position: int
    field: str = Field(max_length=40)
    label: str = Field(max_length=80)


# -- Duplicate management (Salesforce's DuplicateRule and merge) ---------------------------------------------------
class DuplicateRule(Timestamps, table=True):
    """A duplicate rule: which object it watches, its matching rule, and what a save that matches does
    on create and on edit (``Allow``: save after the alert; ``Block``: refuse with ``alert_text``)."""

    __tablename__ = "crm_duplicate_rule"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80)
    object_type: str = Field(max_length=20, index=True)  # account | contact | lead
    active: bool = True
    matching_rule: str = Field(max_length=80)  # "Standard Account Matching Rule"...
    action_on_create: str = Field(default="Allow", max_length=10)  # Allow | Block
    action_on_edit: str = Field(default="Allow", max_length=10)
    alert: bool = True  # Allow shows the alert (Salesforce's "Alert" option)
    alert_text: str = Field(default="Use one of these records?", max_length=255)
    sort_order: int = 1


# -- Campaigns and their members (Salesforce's Campaign and CampaignMember) ------------------------------------------
class Campaign(Timestamps, table=True):
    __tablename__ = "crm_campaign"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, max_length=80)
    type: str | None = Field(default=None, max_length=40)  # Conference Webinar Trade Show Email...
    status: str = Field(default="Planned", max_length=20)  # Planned In Progress Completed Aborted
    start_date: date | None = None
    end_date: date | None = None
    budgeted_cost: float | None = None
    actual_cost: float | None = None
    expected_revenue: float | None = None
    expected_response: float | None = None  # percent
    is_active: bool = True
    parent_id: int | None = Field(default=None, foreign_key="crm_campaign.id")
    owner_id: int | None = Field(default=None, foreign_key=USER_FK, index=True)
    description: str | None = None


class CampaignMember(Timestamps, table=True):
    """A lead or a contact (one of ``lead_id``, ``contact_id``) in a campaign, with its member status."""

    __tablename__ = "crm_campaign_member"
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="crm_campaign.id", index=True)
    lead_id: int | None = Field(default=None, foreign_key="crm_lead.id", index=True)
    contact_id: int | None = Field(default=None, foreign_key="crm_contact.id", index=True)
    status: str = Field(default="Sent", max_length=20)  # Sent | Responded
    has_responded: bool = False
    first_responded_date: date | None = None


# -- Validation rules (Setup > Object Manager > <object> > Validation Rules) -----------------------------------------
class ValidationRule(Timestamps, table=True):
    """A validation rule: when ``error_condition`` (a formula over the record's fields, see ``rules.py``)
    is true, the save is refused with ``error_message``, shown at the top of the page
    (``error_field`` None) or under that field (a column of the object)."""

    __tablename__ = "crm_validation_rule"
    id: int | None = Field(default=None, primary_key=True)
    object_type: str = Field(max_length=20, index=True)  # account | contact | lead | opportunity | case
    name: str = Field(max_length=40)  # the rule's API name, e.g. Next_Step_Required_In_Negotiation
    active: bool = True
    description: str | None = Field(default=None, max_length=500)
    error_condition: str = Field(max_length=3900)
    error_message: str = Field(max_length=255)
    error_field: str | None = Field(default=None, max_length=40)  # None: Top of Page
    last_modified_by_id: int | None = Field(default=None, foreign_key=USER_FK)


# -- Sharing and permissions (Setup > Sharing Settings, Setup > Profiles; see sharing.py) ----------------------------
class OrgWideDefault(SQLModel, table=True):
    """An object's Organization-Wide Default: the baseline access to records one doesn't own
    (``Private`` | ``Public Read Only`` | ``Public Read/Write`` | ``Controlled by Parent``)."""

    __tablename__ = "crm_org_wide_default"
    object_type: str = Field(primary_key=True, max_length=20)  # account | contact | lead | opportunity | case
    access: str = Field(max_length=30)
    grant_hierarchy: bool = True  # Grant Access Using Hierarchies (always on for standard objects)
    last_modified_by_id: int | None = Field(default=None, foreign_key=USER_FK)
    updated_at: NaiveDatetime | None = None


class FieldPermission(SQLModel, table=True):
    """Field-level security: a field a profile (``identity_user.role``) may read but not edit."""

    __tablename__ = "crm_field_permission"
    id: int | None = Field(default=None, primary_key=True)
    profile: str = Field(max_length=30, index=True)  # a Role value: sales_rep, marketing...
    object_type: str = Field(max_length=20)
    field: str = Field(max_length=40)  # the column, e.g. annual_revenue
    access: str = Field(default="Read", max_length=10)  # Read (visible, read-only)
