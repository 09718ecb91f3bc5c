"""CRM: a Salesforce-style sales and service app (accounts, contacts, leads, opportunities, cases)."""

from pathlib import Path

from ..registry import AppSpec
from . import history, models  # noqa: F401  (registers the tables and the field-history listener)

ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M10 5a6 6 0 0 1 5.6 3.8A4.5 4.5 0 1 1 17.5 18H6.5a4.5 4.5 0 0 1-.9-8.9A6 6 0 0 1 10 5z"/></svg>'


def _router():
    from .routes import router

    return router


def _templates_setup(env):
    from markupsafe import Markup

    from ..ui.sanitize import sanitize
    from .objects import NAV_TABS, OBJECTS

    env.globals.update(nav_tabs=NAV_TABS, objects=OBJECTS)
    env.filters["email_body"] = lambda html: Markup(sanitize(html or ""))


def _seed(ctx):
    from .seed import seed_crm

    seed_crm(ctx)


def _seed_last(ctx):
    from .seed.campaigns import seed_campaigns, seed_influence
    from .seed.duplicates import seed_duplicates
    from .seed.rules import seed_rules

    seed_duplicates(ctx)
    seed_campaigns(ctx)
    seed_influence(ctx)
    seed_rules(ctx)
    from .recordtypes import seed_record_types

    seed_record_types(ctx.session)  # last: every app's opportunities and cases get a type by rule, no draw


def _fields():
    from .forms import form_fields
    from .validation import MODELS, RULES

    out = {}
    for key, rules in RULES.items():
        labels = {f.name: f.label for f in form_fields(key)} if key not in ("activity", "note") else {}
        table = out.setdefault(MODELS[key].__tablename__, {})
        for name, rule in rules.items():
            info = {"required": rule.required}
            if name in labels:
                info["label"] = labels[name]
            if rule.kind == "picklist":
                info["picklist"] = list(rule.choices)
            if rule.kind == "lookup":
                info["lookup"] = rule.lookup
            table[name] = info
    from . import picklists as pl

    # Tables edited through their own pages (no generic form rules): their picklists and lookups.
    out["crm_product"] = {"family": {"required": False, "label": "Product Family", "picklist": list(pl.PRODUCT_FAMILIES)}}
    out["crm_quote"] = {"status": {"required": True, "label": "Status", "picklist": list(pl.QUOTE_STATUSES)},
                        "opportunity_id": {"required": True, "label": "Opportunity Name", "lookup": "opportunity"}}
    out["crm_approval_request"] = {"status": {"required": True, "label": "Status", "picklist": ["Pending", "Approved", "Rejected", "Recalled"]},
                                   "approver_id": {"required": True, "label": "Assigned To", "lookup": "user"}}
    out["crm_opportunity_line_item"] = {"opportunity_id": {"required": True, "label": "Opportunity", "lookup": "opportunity"},
                                        "product_id": {"required": True, "label": "Product", "lookup": "product"}}
    # List views and reports people build (routes/listviews.py, routes/builder.py).
    out["crm_list_view"] = {"visibility": {"required": True, "label": "Who sees this list view?", "picklist": ["only_me", "all_users"]},
                            "scope": {"required": True, "label": "Filter by Owner", "picklist": ["all", "mine"]},
                            "object_type": {"required": True, "label": "Object", "picklist": ["account", "contact", "lead", "opportunity", "case"]}}
    out["crm_report"] = {"report_type": {"required": True, "label": "Report Type", "picklist": ["opportunities", "accounts", "cases", "leads", "contacts"]},
                         "chart": {"required": True, "label": "Chart Type", "picklist": ["none", "bar", "donut"]},
                         "folder_id": {"required": False, "label": "Folder", "lookup": "report_folder"}}
    # Dashboards (routes/dashboards.py).
    out["crm_dashboard_folder"] = {"access": {"required": True, "label": "All Internal Users", "picklist": ["Viewer", "Editor"]}}
    out["crm_dashboard"] = {"folder": {"required": True, "label": "Folder (or the name of a crm_dashboard_folder)", "picklist": ["Private Dashboards", "Public Dashboards"]},
                            "folder_id": {"required": False, "label": "Folder", "lookup": "dashboard_folder"}}
    out["crm_dashboard_component"] = {
        "display": {"required": True, "label": "Display As", "picklist": ["bar", "column", "donut", "gauge", "metric", "table"]},
        "standard_report": {"required": False, "label": "Report", "picklist": ["pipeline-by-stage-and-owner", "deals-won-this-quarter",
                                                                              "cases-by-status-and-priority", "open-leads-by-source", "accounts-by-industry"]},
        "report_id": {"required": False, "label": "Report", "lookup": "report"},
        "measure": {"required": True, "label": "Measure (count, or field:agg of the report's summaries)", "picklist": ["count", "amount:sum", "annual_revenue:sum"]}}
    out["crm_dashboard_filter"] = {"field": {"required": True, "label": "Field", "picklist": ["owner", "territory", "close_date"]}}
    # Duplicate management (duplicates.py, routes/merge.py).
    out["crm_duplicate_rule"] = {"object_type": {"required": True, "label": "Object", "picklist": ["account", "contact", "lead"]},
                                 "action_on_create": {"required": True, "label": "Action On Create", "picklist": ["Allow", "Block"]},
                                 "action_on_edit": {"required": True, "label": "Action On Edit", "picklist": ["Allow", "Block"]},
                                 "alert_text": {"required": False, "label": "Alert Text"}}
    out["crm_campaign"] = {"type": {"required": False, "label": "Type", "picklist": ["Advertisement", "Conference", "Direct Mail", "Email", "Partners",
                                                                         "Referral Program", "Telemarketing", "Trade Show", "Webinar", "Other"]},
                           "status": {"required": True, "label": "Status", "picklist": ["Planned", "In Progress", "Completed", "Aborted"]},
                           "parent_id": {"required": False, "label": "Parent Campaign", "lookup": "campaign"}}
    out["crm_campaign_member"] = {"status": {"required": True, "label": "Status", "picklist": ["Sent", "Responded"]},
                                  "campaign_id": {"required": True, "label": "Campaign", "lookup": "campaign"},
                                  "lead_id": {"required": False, "label": "Lead", "lookup": "lead"},
                                  "contact_id": {"required": False, "label": "Contact", "lookup": "contact"}}
    # Validation rules (rules.py, routes/setup.py).
    out["crm_validation_rule"] = {"object_type": {"required": True, "label": "Object", "picklist": ["account", "contact", "lead", "opportunity", "case"]},
                                  "name": {"required": True, "label": "Rule Name"},
                                  "error_condition": {"required": True, "label": "Error Condition Formula (fields by API name: StageName, NextStep...)"},
                                  "error_message": {"required": True, "label": "Error Message"},
                                  "error_field": {"required": False, "label": "Error Location (a column of the object; empty: Top of Page)"},
                                  "last_modified_by_id": {"required": False, "label": "Last Modified By", "lookup": "user"}}
    return out


def _coworkers():
    from .coworker import adapter

    return adapter()


APP = AppSpec(
    name="crm",
    title="Sales Cloud",
    description="Accounts, contacts, leads, opportunities and cases: the sales and service CRM.",
    icon=ICON,
    package_dir=Path(__file__).parent,
    router=_router,
    seed=_seed,
    seed_last=_seed_last,  # near-duplicates, duplicate rules, campaigns and their influence, validation rules: after every app's data
    color="#0176d3",
    order=10,
    templates_setup=_templates_setup,
    volatile=("crm_recent_view", "crm_field_history", "*.updated_at"),
    fields=_fields,
    default_role="sales_rep",
    messaging=_coworkers,  # quote approvals decided by the approver's co-worker profile
)
