"""The desk's home page: the agent's work at a glance, with links into filtered lists."""

from __future__ import annotations

from fastapi import APIRouter, Request
from sqlalchemy import func, select

from ...deps import SessionDep
from ...ui import render
from ..models import Approval, GroupMember, Incident, RequestedItem
from ..navigator import MY_INCIDENTS
from ..acl import DeskUser, access

router = APIRouter()
OPEN = ("New", "In Progress", "On Hold")


@router.get("/")
def home(request: Request, session: SessionDep, user: DeskUser):
    def count(*conds) -> int:
        return session.execute(select(func.count()).select_from(Incident).where(*conds)).scalar_one()

    if not access(request).by_role("incident", "read"):
        return render(request, "desk/home.html", cards=self_service_cards(session, user), self_service=True)
    my_groups = select(GroupMember.group_id).where(GroupMember.user_id == user.id)
    cards = [
        ("Assigned to me", count(Incident.assigned_to_id == user.id, Incident.state.in_(OPEN)),
         "/incident_list.do?sysparm_query=assigned_to=javascript:gs.getUserID()^stateINNew,In Progress,On Hold"),
        ("Open incidents", count(Incident.state.in_(OPEN)), "/incident_list.do?sysparm_query=state!=Resolved^state!=Closed^state!=Canceled"),
        ("Open - Unassigned", count(Incident.state.in_(OPEN), Incident.assigned_to_id.is_(None)),
         "/incident_list.do?sysparm_query=state!=Resolved^state!=Closed^state!=Canceled^assigned_toISEMPTY"),
        ("Critical and high, open", count(Incident.state.in_(OPEN), Incident.priority <= 2),
         "/incident_list.do?sysparm_query=state!=Resolved^state!=Closed^state!=Canceled^priority<=2"),
        ("My groups' open work", count(Incident.state.in_(OPEN), Incident.assignment_group_id.in_(my_groups)), "/incident_list.do?sysparm_query=state!=Resolved^state!=Closed^state!=Canceled"),
        ("My approvals", session.execute(select(func.count()).select_from(Approval).where(Approval.approver_id == user.id, Approval.state == "requested")).scalar_one(),
         "/sysapproval_approver_list.do?sysparm_query=approver=javascript:gs.getUserID()^state=requested"),
    ]
    return render(request, "desk/home.html", cards=cards)


def self_service_cards(session, user) -> list[tuple[str, int, str]]:
    """A self-service user's homepage: their own incidents, requests and approvals."""
    def count(model, *conds) -> int:
        return session.execute(select(func.count()).select_from(model).where(*conds)).scalar_one()

    mine = Incident.caller_id == user.id
    return [
        ("My open incidents", count(Incident, mine, Incident.state.in_(OPEN)), "/incident_list.do?sysparm_query=" + MY_INCIDENTS + "^stateINNew,In Progress,On Hold"),
        ("My incidents", count(Incident, mine), "/incident_list.do?sysparm_query=" + MY_INCIDENTS),
        ("My open requests", count(RequestedItem, RequestedItem.requested_for_id == user.id, RequestedItem.state == "Open"),
         "/sc_req_item_list.do?sysparm_query=requested_for=javascript:gs.getUserID()^state=Open"),
        ("My approvals", count(Approval, Approval.approver_id == user.id, Approval.state == "requested"),
         "/sysapproval_approver_list.do?sysparm_query=approver=javascript:gs.getUserID()^state=requested"),
    ]
