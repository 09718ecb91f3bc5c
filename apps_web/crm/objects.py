"""Per-object metadata shared by every CRM page: labels, URL paths, icons, colours."""

from __future__ import annotations

from dataclasses import dataclass

from .models import Account, Activity, Case, Contact, Lead, Note, Opportunity


@dataclass(frozen=True)
class ObjectInfo:
    key: str  # "account"
    label: str  # "Account"
    plural: str  # "Accounts"
    path: str  # "/accounts"
    icon: str  # kit icon name
    color: str
    model: type

    def url(self, record_id: int | None = None) -> str:
        return self.path if record_id is None else f"{self.path}/{record_id}"


OBJECTS: dict[str, ObjectInfo] = {
    o.key: o
    for o in [
        ObjectInfo("account", "Account", "Accounts", "/accounts", "account", "#5867e8", Account),
        ObjectInfo("contact", "Contact", "Contacts", "/contacts", "contact", "#a094ed", Contact),
        ObjectInfo("lead", "Lead", "Leads", "/leads", "lead", "#f88962", Lead),
        ObjectInfo("opportunity", "Opportunity", "Opportunities", "/opportunities", "opportunity", "#ff5d2d", Opportunity),
        ObjectInfo("case", "Case", "Cases", "/cases", "case", "#f2cf5b", Case),
        ObjectInfo("activity", "Activity", "Activities", "/activities", "task", "#3ba755", Activity),
        ObjectInfo("note", "Note", "Notes", "/notes", "note", "#e6d478", Note),
    ]
}

# Tabs of the app navigation bar, in order: (label, path).
NAV_TABS: list[tuple[str, str]] = [
    ("Home", "/"),
    ("Accounts", "/accounts"),
    ("Contacts", "/contacts"),
    ("Leads", "/leads"),
    ("Opportunities", "/opportunities"),
    ("Campaigns", "/campaigns"),
    ("Cases", "/cases"),
    ("Tasks", "/tasks"),
    ("Reports", "/reports"),
    ("Dashboards", "/dashboards"),
]
