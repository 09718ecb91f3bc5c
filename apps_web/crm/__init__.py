"""CRM: a Salesforce-style sales and service app (accounts, contacts, leads, opportunities, cases)."""

from pathlib import Path

from ..registry import AppSpec
from . import models  # noqa: F401  (registers the tables)

ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M10 5a6 6 0 0 1 5.6 3.8A4.5 4.5 0 1 1 17.5 18H6.5a4.5 4.5 0 0 1-.9-8.9A6 6 0 0 1 10 5z"/></svg>'


def _router():
    from .routes import router

    return router


def _templates_setup(env):
    from .objects import NAV_TABS, OBJECTS

    env.globals.update(nav_tabs=NAV_TABS, objects=OBJECTS)


def _seed(ctx):
    from .seed import seed_crm

    seed_crm(ctx)


APP = AppSpec(
    name="crm",
    title="Sales Cloud",
    description="Accounts, contacts, leads, opportunities and cases: the sales and service CRM.",
    icon=ICON,
    package_dir=Path(__file__).parent,
    router=_router,
    seed=_seed,
    color="#0176d3",
    order=10,
    templates_setup=_templates_setup,
    volatile=("crm_recent_view", "*.updated_at"),
)
