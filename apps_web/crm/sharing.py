"""Record access, as Salesforce's sharing model decides it, in one place.

* **Organization-Wide Defaults** (``crm_org_wide_default``, Setup > Sharing Settings): per object the
  access to records one doesn't own: ``Private``, ``Public Read Only``, ``Public Read/Write``; a
  contact is ``Controlled by Parent`` (its account's access). The org ships with Opportunity Private
  and the rest Public Read/Write, as a new Salesforce org does.
* **Grant Access Using Hierarchies**: the role hierarchy is the org chart (``identity_user.manager_id``):
  a user reaches the records owned by themselves and by everyone below them, read and write.
* **View All Data / Modify All Data**: the System Administrator profile has both; Finance (the
  Financial Analysts, who reconcile bookings and revenue) has View All Data, read-only, as finance
  profiles usually get in a real org. Nobody else bypasses sharing.
* **Field-level security** (``crm_field_permission``): a handful of fields some profiles may read but
  not edit.

Everything that reads records asks ``visible`` (a SQL filter) or ``visible_sql`` (the same as SQL text
for the reports' raw queries); everything that writes asks ``can_edit``; the routes call
``require_read`` / ``require_edit``, which answer Salesforce's "Insufficient Privileges" (403).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, false, or_, select
from sqlmodel import Session

from ..errors import TitledError
from ..identity.models import Role, User
from .models import Account, Case, Contact, FieldPermission, Lead, Opportunity, OrgWideDefault

PRIVATE, READ, EDIT, PARENT = "Private", "Public Read Only", "Public Read/Write", "Controlled by Parent"
ACCESS_LEVELS = (PRIVATE, READ, EDIT)
SHARED_OBJECTS = ("account", "contact", "lead", "opportunity", "case")
MODELS: dict[str, Any] = {"account": Account, "contact": Contact, "lead": Lead, "opportunity": Opportunity, "case": Case}
TABLES = {k: m.__tablename__ for k, m in MODELS.items()}
# A new org's defaults (Salesforce: Opportunity Private in this company; the rest Public Read/Write).
DEFAULTS = {"account": EDIT, "contact": PARENT, "lead": EDIT, "opportunity": PRIVATE, "case": EDIT}

# Field-level security: (profile, object, column) read-only. Reps don't edit Probability (the stage sets it)
# nor Annual Revenue (the enrichment service maintains it); service and marketing read deal amounts.
READ_ONLY_FIELDS: list[tuple[str, str, str]] = [
    ("sales_rep", "opportunity", "probability"),
    ("sales_rep", "account", "annual_revenue"),
    ("support_agent", "opportunity", "amount"),
    ("support_agent", "account", "annual_revenue"),
    ("support_manager", "opportunity", "amount"),
    ("marketing", "opportunity", "amount"),
    ("marketing", "account", "annual_revenue"),
]

INSUFFICIENT_TITLE = "Insufficient Privileges"
INSUFFICIENT_RECORD = ("You don't have the level of access necessary to perform the operation you requested. "
                       "Contact the owner of the record or your administrator if access is necessary.")
INSUFFICIENT = f"{INSUFFICIENT_TITLE}: {INSUFFICIENT_RECORD}"
NO_EDIT = "You don't have permission to edit this record. Contact the record owner or your administrator if you need access."
API_NO_ACCESS = "insufficient access rights on object id"


def fls_message(labels: list[str]) -> str:
    return (f"Unable to create/update fields: {', '.join(labels)}. Please check the security settings of this field "
            "and verify that it is read/write for your profile or permission set.")


def role_of(user: User) -> str:
    return user.role.value if isinstance(user.role, Role) else str(user.role)


def modify_all(user: User) -> bool:
    return role_of(user) == Role.admin.value


# Object permission "View All" (read every record of the object, whatever its sharing): service, IT and
# marketing read deals for customer context and campaign influence, as the real org's profiles grant.
OBJECT_VIEW_ALL: dict[str, frozenset[str]] = {
    Role.support_agent.value: frozenset({"opportunity"}), Role.support_manager.value: frozenset({"opportunity"}),
    Role.it.value: frozenset({"opportunity"}), Role.marketing.value: frozenset({"opportunity"}),
}


def view_all(user: User, object_key: str | None = None) -> bool:
    """View All Data (admin, finance), or the profile's View All on ``object_key``."""
    role = role_of(user)
    return role in (Role.admin.value, Role.finance.value) or (object_key is not None and object_key in OBJECT_VIEW_ALL.get(role, ()))


# -- seeding and settings ---------------------------------------------------------------------------------------------
def seed_rows() -> list:
    """The org's configuration: the same in every world (no random draw)."""
    rows: list = [OrgWideDefault(object_type=k, access=v) for k, v in DEFAULTS.items()]
    rows += [FieldPermission(id=i, profile=p, object_type=o, field=f) for i, (p, o, f) in enumerate(READ_ONLY_FIELDS, start=1)]
    return rows


def seed_running_users(session: Session) -> None:
    """The org's shared dashboards run as the VP of Sales (who reaches every deal), as a company dashboard is set up."""
    from .models import Dashboard

    vp = session.execute(select(User.id).where(User.title == "VP of Sales").order_by(User.id)).scalars().first()
    if vp is None:
        return
    for dash in session.execute(select(Dashboard).order_by(Dashboard.id)).scalars():
        dash.running_user_id = vp
        session.add(dash)


def defaults(session: Session) -> dict[str, str]:
    out = dict(DEFAULTS)
    for row in session.execute(select(OrgWideDefault)).scalars():
        out[row.object_type] = row.access
    return out


def owd(session: Session, object_key: str) -> str:
    if object_key not in DEFAULTS:
        return EDIT  # activities, notes, campaigns...: public in this org
    cache = session.info.get("sharing_owd")
    if cache is None:  # one query per request (a request's session); a save of the settings ends its request
        cache = session.info["sharing_owd"] = defaults(session)
    return cache[object_key]


# -- the role hierarchy ---------------------------------------------------------------------------------------------
def _chart(session: Session) -> dict[int | None, list[int]]:
    children: dict[int | None, list[int]] = {}
    for uid, mid in session.execute(select(User.id, User.manager_id).order_by(User.id)).all():
        children.setdefault(mid, []).append(uid)
    return children


def below(session: Session, user_id: int) -> set[int]:
    """Everyone under ``user_id`` in the hierarchy (not the user)."""
    children = _chart(session)
    out: set[int] = set()
    stack = list(children.get(user_id, []))
    while stack:
        uid = stack.pop()
        if uid not in out:
            out.add(uid)
            stack += children.get(uid, [])
    return out


def reach(session: Session, user: User) -> set[int]:
    """The owners whose records ``user`` reaches through the hierarchy: themselves and those below."""
    cache = session.info.setdefault("sharing_reach", {})
    if user.id not in cache:
        cache[user.id] = {user.id} | below(session, user.id)
    return cache[user.id]


def tree(session: Session) -> list[tuple[int, User]]:
    """The hierarchy as (depth, user), depth-first, managers before their reports."""
    users = {u.id: u for u in session.execute(select(User)).scalars()}
    children = _chart(session)
    out: list[tuple[int, User]] = []

    def walk(parent: int | None, depth: int) -> None:
        kids = sorted((users[i] for i in children.get(parent, []) if i in users), key=lambda u: (u.title, u.last_name, u.first_name, u.id))
        for u in kids:
            out.append((depth, u))
            walk(u.id, depth + 1)

    walk(None, 0)
    return out


# -- who reaches what ---------------------------------------------------------------------------------------------------
def access(session: Session, user: User, object_key: str, record: Any) -> str | None:
    """``"edit"``, ``"read"`` or None for one record."""
    if object_key not in MODELS or modify_all(user):
        return "edit"
    level = owd(session, object_key)
    if getattr(record, "owner_id", None) in reach(session, user):
        return "edit"
    if level == PARENT:
        account = session.get(Account, record.account_id) if getattr(record, "account_id", None) else None
        got = access(session, user, "account", account) if account is not None else None
    else:
        got = {EDIT: "edit", READ: "read"}.get(level)
    if got is None and view_all(user, object_key):
        return "read"
    return got


def can_read(session: Session, user: User, object_key: str, record: Any) -> bool:
    return access(session, user, object_key, record) is not None


def can_edit(session: Session, user: User, object_key: str, record: Any) -> bool:
    return access(session, user, object_key, record) == "edit"


def require_read(session: Session, user: User, object_key: str, record: Any) -> None:
    if not can_read(session, user, object_key, record):
        raise TitledError(403, INSUFFICIENT, INSUFFICIENT_TITLE)


def require_edit(session: Session, user: User, object_key: str, record: Any) -> None:
    require_read(session, user, object_key, record)
    if not can_edit(session, user, object_key, record):
        raise TitledError(403, INSUFFICIENT, INSUFFICIENT_TITLE)


def visible(session: Session, user: User, object_key: str, model: Any = None) -> list:
    """Conditions (ANDed) that keep the rows of ``object_key`` ``user`` may see; [] for all."""
    if object_key not in MODELS or view_all(user, object_key):
        return []
    model = model if model is not None else MODELS[object_key]
    level = owd(session, object_key)
    owners = sorted(reach(session, user))
    if level in (READ, EDIT):
        return []
    if level == PARENT:
        account_level = owd(session, "account")
        parent = model.account_id.isnot(None) if account_level in (READ, EDIT) else \
            model.account_id.in_(select(Account.id).where(Account.owner_id.in_(owners)))
        return [or_(model.owner_id.in_(owners), parent)]
    return [model.owner_id.in_(owners)]


def visible_sql(session: Session, user: User, object_key: str, alias: str) -> str | None:
    """The same filter as SQL text over ``alias`` (the raw SQL of reports); None for all rows."""
    if object_key not in MODELS or view_all(user, object_key):
        return None
    level = owd(session, object_key)
    owners = ",".join(str(i) for i in sorted(reach(session, user)))  # integers from the database
    if level in (READ, EDIT):
        return None
    if level == PARENT:
        if owd(session, "account") in (READ, EDIT):
            return f"({alias}.owner_id IN ({owners}) OR {alias}.account_id IS NOT NULL)"
        return f"({alias}.owner_id IN ({owners}) OR {alias}.account_id IN (SELECT id FROM crm_account WHERE owner_id IN ({owners})))"
    return f"{alias}.owner_id IN ({owners})"


def visible_ids_sql(session: Session, user: User, object_key: str, column: str) -> str | None:
    """``column IN (ids of visible rows)`` for a query that carries the record's id, not its owner."""
    inner = visible_sql(session, user, object_key, "s")
    if inner is None:
        return None
    return f"{column} IN (SELECT s.id FROM {TABLES[object_key]} s WHERE {inner})"


def nothing() -> Any:
    return and_(false())


# -- field-level security ---------------------------------------------------------------------------------------------
def read_only_fields(session: Session, user: User, object_key: str) -> set[str]:
    if modify_all(user):
        return set()
    cache = session.info.get("sharing_fls")
    if cache is None:  # one query per request for every profile and object
        cache = session.info["sharing_fls"] = {}
        for profile, obj, column in session.execute(select(FieldPermission.profile, FieldPermission.object_type, FieldPermission.field)).all():
            cache.setdefault((profile, obj), set()).add(column)
    return set(cache.get((role_of(user), object_key), ()))


def refused_fields(session: Session, user: User, object_key: str, record: Any, data: dict[str, Any]) -> list[str]:
    """The read-only fields ``data`` would change (a posted value equal to the stored one is no change)."""
    locked = read_only_fields(session, user, object_key)
    out = []
    for name in sorted(locked & set(data)):
        new, old = data[name], getattr(record, name, None) if record is not None else None
        if new in (None, "") and old in (None, ""):
            continue
        if record is not None and _same(new, old):
            continue
        out.append(name)
    return out


def _same(new: Any, old: Any) -> bool:
    try:
        return float(new) == float(old)
    except (TypeError, ValueError):
        return str(new) == str(old)


# -- the signed-in user of a request (deps.optional_user leaves their id on the session) ---------------------------
def viewer(session: Session) -> User | None:
    """The user a page is rendered for; None outside a request (seeding, verifiers), where all rows count."""
    uid = session.info.get("user_id")
    return session.get(User, uid) if uid is not None else None


def visible_here(session: Session, object_key: str, model: Any = None) -> list:
    user = viewer(session)
    return [] if user is None else visible(session, user, object_key, model)


def visible_sql_here(session: Session, object_key: str, alias: str) -> str | None:
    user = viewer(session)
    return None if user is None else visible_sql(session, user, object_key, alias)


def can_delete(session: Session, user: User, object_key: str, record: Any) -> bool:
    """Salesforce: the owner, those above them in the hierarchy and Modify All Data delete; Public Read/Write doesn't."""
    if object_key not in MODELS or modify_all(user):
        return True
    return getattr(record, "owner_id", None) in reach(session, user)


def display_denied(record: Any) -> str:
    """A merge or mass change that includes a record one may read but not edit."""
    name = getattr(record, "name", None) or getattr(record, "case_number", "") or "a record"
    return f"You don't have access to edit {name}. {INSUFFICIENT_TITLE}: nothing was changed."
