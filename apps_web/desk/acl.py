"""Roles and access control (ACLs) of the desk, as in ServiceNow.

A user's roles are rows of ``desk_user_role`` (sys_user_has_role); ``admin`` contains every role and
``itil_admin`` contains ``itil``. A user with no role is a self-service (ESS) user.

Each table has rules per operation (read, create, write, delete): the roles any of which passes, and
the columns that name the user on the rows they may reach without a role (a caller's own incidents,
a requester's own requests, an approver's own approvals). Passing only by such a column may restrict
what can be written (``own_fields``: a caller adds comments to their own incident, nothing else).
Field rules cover the few protected fields (work notes are for itil).

The desk's routes, forms, lists and its Table API ask the request's :class:`Access` (the
``DeskUser`` dependency puts it on ``request.state.access``), so a page and the API refuse alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request
from sqlalchemy import false, or_, select
from sqlmodel import Session

from ..deps import CurrentUser, SessionDep
from ..identity.models import User
from .models import Impersonation, UserRole

ROLES: dict[str, str] = {
    "admin": "System administrator: every role, User Administration, impersonation",
    "itil": "Fulfiller: works incidents, problems and changes",
    "itil_admin": "Fulfiller lead: itil, and may delete and administer ITSM records",
    "approver_user": "Approves requests and changes (CAB)",
    "catalog_admin": "Maintains the service catalog's items",
    "knowledge_admin": "Maintains knowledge bases and articles",
}
CONTAINS: dict[str, tuple[str, ...]] = {"admin": tuple(ROLES), "itil_admin": ("itil",)}
DENIED_PAGE = "Security constraints prevent access to requested page"
EVERYONE = None  # a rule any signed-in user passes


@dataclass(frozen=True)
class Rule:
    roles: tuple[str, ...] | None  # any of these passes (EVERYONE: no role needed)
    own: tuple[str, ...] = ()  # columns naming the user: such rows pass without the roles
    own_fields: tuple[str, ...] | None = None  # what passing by ``own`` may write (None: everything)
    condition: tuple[str, Any] | None = None  # (column, value): rows everyone passes (ServiceNow's ACL condition)


ITIL = ("itil",)
ADMIN = ("admin",)
ACL: dict[str, dict[str, Rule]] = {
    "incident": {"read": Rule(ITIL, ("caller_id", "opened_by_id")), "create": Rule(EVERYONE),
                 "write": Rule(ITIL, ("caller_id", "opened_by_id"), own_fields=("comments",)), "delete": Rule(ADMIN)},
    "problem": {"read": Rule(ITIL), "create": Rule(ITIL), "write": Rule(ITIL), "delete": Rule(("itil_admin",))},
    "change_request": {"read": Rule(ITIL), "create": Rule(ITIL), "write": Rule(ITIL), "delete": Rule(("itil_admin",))},
    "task_sla": {"read": Rule(ITIL), "create": Rule(ADMIN), "write": Rule(ADMIN), "delete": Rule(ADMIN)},
    "cmdb_ci": {"read": Rule(ITIL, ("assigned_to_id",)), "create": Rule(ADMIN), "write": Rule(ADMIN), "delete": Rule(ADMIN)},
    # published articles are for everyone; drafts and retired ones for the service desk and the knowledge admins
    "kb_knowledge": {"read": Rule(("itil", "knowledge_admin"), condition=("workflow_state", "Published")), "create": Rule(("knowledge_admin",)), "write": Rule(("knowledge_admin",)),
                     "delete": Rule(("knowledge_admin",))},
    "sc_cat_item": {"read": Rule(EVERYONE), "create": Rule(("catalog_admin",)), "write": Rule(("catalog_admin",)), "delete": Rule(("catalog_admin",))},
    "sc_request": {"read": Rule(ITIL, ("requested_for_id", "opened_by_id")), "create": Rule(EVERYONE), "write": Rule(ITIL), "delete": Rule(ADMIN)},
    "sc_req_item": {"read": Rule(ITIL, ("requested_for_id",)), "create": Rule(EVERYONE), "write": Rule(ITIL), "delete": Rule(ADMIN)},
    # an approval is decided by its approver only (an admin may too, as in the real product)
    "sysapproval_approver": {"read": Rule(ITIL, ("approver_id",)), "create": Rule(ADMIN), "write": Rule(ADMIN, ("approver_id",)),
                             "delete": Rule(ADMIN)},
    "sys_user": {"read": Rule(EVERYONE), "create": Rule(ADMIN), "write": Rule(ADMIN), "delete": Rule(ADMIN)},
    "sys_user_group": {"read": Rule(EVERYONE), "create": Rule(ADMIN), "write": Rule(ADMIN), "delete": Rule(ADMIN)},
    "sys_user_has_role": {"read": Rule(ITIL, ("user_id",)), "create": Rule(ADMIN), "write": Rule(ADMIN), "delete": Rule(ADMIN)},
}
# (table, field) -> operation -> roles; fields not named follow their table's rules
FIELD_ACL: dict[tuple[str, str], dict[str, tuple[str, ...]]] = {
    ("incident", "work_notes"): {"read": ITIL, "write": ITIL},
    ("problem", "work_notes"): {"read": ITIL, "write": ITIL},
    ("change_request", "work_notes"): {"read": ITIL, "write": ITIL},
}
# What a self-service user fills in when raising an incident (the rest is the desk's to decide)
ESS_INCIDENT_FIELDS = ("category", "subcategory", "urgency", "short_description", "description", "comments")


def roles_of(session: Session, user_id: int | None) -> frozenset[str]:
    """The user's roles, contained roles included."""
    if user_id is None:
        return frozenset()
    granted = session.execute(select(UserRole.role).where(UserRole.user_id == user_id)).scalars().all()
    return frozenset(r for g in granted for r in (g, *CONTAINS.get(g, ())))


@dataclass
class Access:
    """Who the request acts as (``user``: the impersonated user while an admin impersonates), who
    is signed in (``real``) and the acting user's roles."""

    user: User
    real: User
    roles: frozenset[str]
    impersonation: Impersonation | None = None
    real_is_admin: bool = False  # the signed-in user may impersonate (whoever is impersonated)
    recent_impersonations: tuple[User, ...] = ()

    def has(self, *roles: str) -> bool:
        return "admin" in self.roles or any(r in self.roles for r in roles)

    def rule(self, table: str, op: str) -> Rule:
        return ACL.get(table, {}).get(op, Rule(ADMIN))

    def by_role(self, table: str, op: str) -> bool:
        """The operation passes on every row of the table (by role, or open to everyone)."""
        rule = self.rule(table, op)
        return rule.roles is EVERYONE or self.has(*rule.roles)

    def can(self, table: str, op: str) -> bool:
        """The operation passes on some rows at least (by role, on the user's own rows, or by the rule's condition)."""
        rule = self.rule(table, op)
        return self.by_role(table, op) or bool(rule.own) or rule.condition is not None

    def row_filter(self, table: str, model: Any):  # noqa: ANN201 - a SQL condition
        """The condition on the rows the user may read (None: every row); an ESS user's lists
        and API reads show their own records only, as ServiceNow's query rules do."""
        if self.by_role(table, "read"):
            return None
        rule = self.rule(table, "read")
        conds = [getattr(model, c) == self.user.id for c in rule.own]
        if rule.condition is not None:
            conds.append(getattr(model, rule.condition[0]) == rule.condition[1])
        return or_(*conds) if conds else false()

    def can_row(self, table: str, op: str, rec: Any) -> bool:
        if self.by_role(table, op):
            return True
        rule = self.rule(table, op)
        if rule.condition is not None and getattr(rec, rule.condition[0], None) == rule.condition[1]:
            return True
        return any(getattr(rec, c, None) == self.user.id for c in rule.own)

    def writable_fields(self, table: str, rec: Any) -> tuple[str, ...] | None:
        """The fields the user may write on ``rec`` (None: all of them; () nothing)."""
        if self.by_role(table, "write"):
            return None
        rule = self.rule(table, "write")
        if any(getattr(rec, c, None) == self.user.id for c in rule.own):
            return rule.own_fields or None
        return ()

    def field(self, table: str, name: str, op: str = "read") -> bool:
        roles = FIELD_ACL.get((table, name), {}).get(op)
        return roles is None or self.has(*roles)


def _impersonated(request: Request, session: Session, real: User) -> Impersonation | None:
    from .impersonation import active

    return active(request, session, real)


def desk_user(request: Request, session: SessionDep, user: CurrentUser) -> User:
    """The user the desk acts as: the signed-in user, or the user an admin impersonates. Puts the
    request's :class:`Access` on ``request.state.access`` (and the acting user in the page header)."""
    from .impersonation import recent

    imp = _impersonated(request, session, user)
    acting = session.get(User, imp.user_id) if imp is not None else None
    acting = acting if acting is not None and acting.active else user
    real_roles = roles_of(session, user.id)
    roles = real_roles if acting is user else roles_of(session, acting.id)
    admin = "admin" in real_roles
    request.state.access = Access(user=acting, real=user, roles=roles, impersonation=imp if acting is not user else None,
                                  real_is_admin=admin, recent_impersonations=tuple(recent(session, user)) if admin else ())
    request.state.user = acting
    request.state.real_user = user
    session.info["user_id"] = acting.id
    session.info["username"] = acting.username  # sys_updated_by of what the request writes
    return acting


DeskUser = Annotated[User, Depends(desk_user)]


def access(request: Request) -> Access:
    return request.state.access


__all__ = ["ACL", "Access", "DENIED_PAGE", "DeskUser", "ESS_INCIDENT_FIELDS", "ROLES", "Rule", "access", "desk_user", "roles_of"]
