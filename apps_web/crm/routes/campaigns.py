"""Campaigns (Salesforce's Campaign object): the Campaigns tab with its list views, New Campaign, the
campaign page with its Campaign Members, and Add to Campaign from a lead or a contact.

Routes:
  GET  /campaigns                       list (?view=all|active|mine, q)
  POST /campaigns                       create (New Campaign dialog)
  GET  /campaigns/<id>                  the campaign: details, statistics, Campaign Members
  POST /campaigns/<id>/members/<mid>    change a member's status (Sent | Responded)
  POST /leads/<id>/campaigns, /contacts/<id>/campaigns    Add to Campaign
"""

from __future__ import annotations

from datetime import date
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy import func
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import redirect, render
from ..common import get_or_404, stamp, users_by_id
from ..models import Account, Campaign, CampaignMember, Contact, Lead

router = APIRouter(include_in_schema=False)
TYPES = ["Advertisement", "Conference", "Direct Mail", "Email", "Partners", "Referral Program", "Telemarketing", "Trade Show", "Webinar", "Other"]
STATUSES = ["Planned", "In Progress", "Completed", "Aborted"]
MEMBER_STATUSES = ["Sent", "Responded"]
VIEWS = {"all": "All Campaigns", "active": "All Active Campaigns", "mine": "My Active Campaigns"}
REQUIRED = "Complete this field."


def _money(raw: str, errors: dict, name: str) -> float | None:
    text = raw.replace(",", "").replace("$", "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        errors[name] = "Enter a valid number."
        return None
    if value < 0:
        errors[name] = "Enter a positive number."
    return value


def _date(raw: str, errors: dict, name: str) -> date | None:
    if not raw.strip():
        return None
    try:
        return date.fromisoformat(raw.strip())
    except ValueError:
        errors[name] = "Your entry does not match the allowed format M/d/yyyy."
        return None


def validate_campaign(session, form: Any) -> tuple[dict, dict]:  # noqa: ANN001
    raw = {k: str(form.get(k, "") or "").strip() for k in ("name", "type", "status", "start_date", "end_date", "budgeted_cost", "actual_cost",
                                                         "expected_revenue", "expected_response", "parent_id", "is_active", "description")}
    errors: dict[str, str] = {}
    if not raw["name"]:
        errors["name"] = REQUIRED
    elif len(raw["name"]) > 80:
        errors["name"] = "Campaign Name: data value too large (max length=80)"
    if raw["type"] and raw["type"] not in TYPES:
        errors["type"] = f"Bad value for restricted picklist field: {raw['type']}"
    status = raw["status"] or "Planned"
    if status not in STATUSES:
        errors["status"] = f"Bad value for restricted picklist field: {status}"
    start, end = _date(raw["start_date"], errors, "start_date"), _date(raw["end_date"], errors, "end_date")
    if start and end and end < start:
        errors["end_date"] = "The End Date can't be earlier than the Start Date."
    values = {"name": raw["name"], "type": raw["type"] or None, "status": status, "start_date": start, "end_date": end,
              "budgeted_cost": _money(raw["budgeted_cost"], errors, "budgeted_cost"), "actual_cost": _money(raw["actual_cost"], errors, "actual_cost"),
              "expected_revenue": _money(raw["expected_revenue"], errors, "expected_revenue"),
              "expected_response": _money(raw["expected_response"], errors, "expected_response"),
              "is_active": raw["is_active"] in ("on", "1", "true"), "description": raw["description"] or None, "parent_id": None}
    if raw["parent_id"]:
        parent = session.get(Campaign, int(raw["parent_id"])) if raw["parent_id"].isdigit() else None
        if parent is None:
            errors["parent_id"] = "Select an option from the picklist or remove the search term."
        else:
            values["parent_id"] = parent.id
    return values, errors | ({"__raw__": raw} if errors else {})


def _list(request: Request, session, user, *, view: str = "all", q: str = "", form: dict | None = None, status_code: int = 200) -> Response:  # noqa: ANN001
    view = view if view in VIEWS else "all"
    query = select(Campaign)
    if view in ("active", "mine"):
        query = query.where(Campaign.is_active == True)  # noqa: E712
    if view == "mine":
        query = query.where(Campaign.owner_id == user.id)
    if q:
        query = query.where(Campaign.name.ilike(f"%{q}%"))
    rows = list(session.exec(query.order_by(Campaign.name, Campaign.id)).all())
    counts = dict(session.exec(select(CampaignMember.campaign_id, func.count()).group_by(CampaignMember.campaign_id)).all())
    parents = {c.id: c.name for c in session.exec(select(Campaign)).all()}
    return render(request, "crm/campaigns.html", status_code=status_code, rows=rows, view=view, views=VIEWS, q=q, users=users_by_id(session),
                  counts=counts, parents=parents, types=TYPES, statuses=STATUSES, form=form or {"values": {"status": "Planned", "is_active": "on"}, "errors": {}},
                  all_campaigns=sorted(parents.items(), key=lambda kv: kv[1]))


@router.get("/campaigns")
def campaigns(request: Request, session: SessionDep, user: CurrentUser, view: str = "all", q: str = "") -> Response:
    return _list(request, session, user, view=view, q=q.strip())


@router.post("/campaigns")
async def create_campaign(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    form = await request.form()
    values, errors = validate_campaign(session, form)
    if errors:
        raw = errors.pop("__raw__")
        return _list(request, session, user, form={"values": raw, "errors": errors, "open": True}, status_code=422)
    campaign = Campaign(**values, owner_id=user.id)
    stamp(campaign, user, clock, created=True)
    session.add(campaign)
    session.commit()
    return redirect(request, f"/campaigns/{campaign.id}", toast=f'Campaign "{campaign.name}" was created.')


def _member_rows(session, campaign_id: int) -> list[dict]:  # noqa: ANN001
    members = list(session.exec(select(CampaignMember).where(CampaignMember.campaign_id == campaign_id).order_by(CampaignMember.id)).all())
    leads = {r.id: r for r in session.exec(select(Lead).where(Lead.id.in_([m.lead_id for m in members if m.lead_id]))).all()}
    contacts = {r.id: r for r in session.exec(select(Contact).where(Contact.id.in_([m.contact_id for m in members if m.contact_id]))).all()}
    accounts = {a.id: a.name for a in session.exec(select(Account).where(Account.id.in_([c.account_id for c in contacts.values() if c.account_id]))).all()}
    rows = []
    for m in members:
        if m.lead_id and m.lead_id in leads:
            p = leads[m.lead_id]
            rows.append({"m": m, "type": "Lead", "name": p.name, "url": f"/leads/{p.id}", "company": p.company, "title": p.title or ""})
        elif m.contact_id and m.contact_id in contacts:
            p = contacts[m.contact_id]
            rows.append({"m": m, "type": "Contact", "name": p.name, "url": f"/contacts/{p.id}", "company": accounts.get(p.account_id, ""), "title": p.title or ""})
    return rows


def influenced(session, campaign_id: int) -> list:  # noqa: ANN001
    """The opportunities whose Primary Campaign Source is the campaign, by close date."""
    from ..models import Opportunity

    return list(session.exec(select(Opportunity).where(Opportunity.campaign_id == campaign_id).order_by(Opportunity.close_date, Opportunity.id)).all())


def opportunity_stats(opps: list) -> dict:
    """Salesforce's campaign statistics over the opportunities it sourced (NumberOfOpportunities,
    AmountAllOpportunities, NumberOfWonOpportunities, AmountWonOpportunities)."""
    won = [o for o in opps if o.stage == "Closed Won"]
    return {"num_opps": len(opps), "value_opps": float(sum(o.amount or 0 for o in opps)),
            "num_won": len(won), "value_won": float(sum(o.amount or 0 for o in won))}


@router.get("/campaigns/{campaign_id:int}")
def campaign_page(request: Request, campaign_id: int, session: SessionDep, user: CurrentUser) -> Response:
    campaign = get_or_404(session, Campaign, campaign_id, "Campaign")
    rows = _member_rows(session, campaign.id)
    parent = session.get(Campaign, campaign.parent_id) if campaign.parent_id else None
    children = list(session.exec(select(Campaign).where(Campaign.parent_id == campaign.id).order_by(Campaign.name)).all())
    stats = {"leads": sum(1 for r in rows if r["type"] == "Lead"), "contacts": sum(1 for r in rows if r["type"] == "Contact"),
             "responses": sum(1 for r in rows if r["m"].has_responded)}
    opps = influenced(session, campaign.id)
    stats.update(opportunity_stats(opps))  # the campaign's statistics are roll-ups over every deal, as Salesforce's are
    from ..sharing import can_read, viewer

    if (who := viewer(session)) is not None:  # its Opportunities list shows the ones the user may see
        opps = [o for o in opps if can_read(session, who, "opportunity", o)]
    accounts = {a.id: a.name for a in session.exec(select(Account).where(Account.id.in_({o.account_id for o in opps if o.account_id}))).all()}
    return render(request, "crm/campaign.html", campaign=campaign, rows=rows, parent=parent, children=children, stats=stats, opps=opps, accounts=accounts,
                  owner=users_by_id(session).get(campaign.owner_id), member_statuses=MEMBER_STATUSES)


@router.post("/campaigns/{campaign_id:int}/members/{member_id:int}")
async def member_status(request: Request, campaign_id: int, member_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    member = get_or_404(session, CampaignMember, member_id, "Campaign Member")
    form = await request.form()
    status = str(form.get("status", ""))
    if member.campaign_id != campaign_id or status not in MEMBER_STATUSES:
        return redirect(request, f"/campaigns/{campaign_id}", toast="Choose a member status from the list.", kind="error")
    member.status = status
    member.has_responded = status == "Responded"
    if member.has_responded and member.first_responded_date is None:
        member.first_responded_date = clock.now.date()
    stamp(member, user, clock)
    session.add(member)
    session.commit()
    return redirect(request, f"/campaigns/{campaign_id}", toast="Member status was updated.")


def add_to_campaign_context(session, object_key: str, record) -> dict:  # noqa: ANN001
    """What the record page's Add to Campaign dialog offers: the active campaigns the person is not in."""
    col = CampaignMember.lead_id if object_key == "lead" else CampaignMember.contact_id
    joined = set(session.exec(select(CampaignMember.campaign_id).where(col == record.id)).all())
    active = session.exec(select(Campaign).where(Campaign.is_active == True).order_by(Campaign.name)).all()  # noqa: E712
    return {"campaigns": [c for c in active if c.id not in joined], "statuses": MEMBER_STATUSES}


def _add(object_key: str):
    async def add(request: Request, record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
        from .records import load, record_url, render_record

        record = load(session, object_key, record_id)
        form = await request.form()
        raw = {"campaign_id": str(form.get("campaign_id", "")), "status": str(form.get("status", "") or "Sent")}
        errors: dict[str, str] = {}
        campaign = session.get(Campaign, int(raw["campaign_id"])) if raw["campaign_id"].isdigit() else None
        col = CampaignMember.lead_id if object_key == "lead" else CampaignMember.contact_id
        if campaign is None:
            errors["campaign_id"] = REQUIRED
        elif not campaign.is_active:
            errors["campaign_id"] = "This campaign isn't active. Select an active campaign."
        elif session.exec(select(CampaignMember).where(CampaignMember.campaign_id == campaign.id, col == record.id)).first():
            errors["campaign_id"] = f"This {object_key} is already a member of this campaign."
        if raw["status"] not in MEMBER_STATUSES:
            errors["status"] = f"Bad value for restricted picklist field: {raw['status']}"
        if errors:
            return render_record(request, session, user, clock, object_key, record, status_code=422, open_dialog="add-campaign-dialog",
                                 campaign_values=raw, campaign_errors=errors)
        member = CampaignMember(campaign_id=campaign.id, status=raw["status"], has_responded=raw["status"] == "Responded",
                                first_responded_date=clock.now.date() if raw["status"] == "Responded" else None, **{col.key: record.id})
        stamp(member, user, clock, created=True)
        session.add(member)
        session.commit()
        return redirect(request, record_url(object_key, record.id), toast=f'{record.name} was added to the campaign "{campaign.name}".')

    add.__name__ = f"add_{object_key}_to_campaign"
    return add


for _key, _path in (("lead", "/leads"), ("contact", "/contacts")):
    router.add_api_route(_path + "/{record_id:int}/campaigns", _add(_key), methods=["POST"], name=f"{_key}_add_to_campaign")
