"""Service desk: a ServiceNow-style IT service management app (incidents, knowledge, catalog, CMDB)."""

from pathlib import Path

from ..registry import AppSpec
from . import models  # noqa: F401  (registers the tables)

ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 3a9 9 0 0 0-9 9v5a3 3 0 0 0 3 3h2v-7H5v-1a7 7 0 0 1 14 0v1h-3v7h2a3 3 0 0 0 3-3v-5a9 9 0 0 0-9-9z"/></svg>'


def _router():
    from .routes import router

    return router


def _templates_setup(env):
    from .navigator import navigator_for
    from .tables import TABLES

    env.globals.update(navigator_for=navigator_for, tables=TABLES)


def _seed(ctx):
    from .seed import seed_desk

    seed_desk(ctx)



def _signout(request, response):
    from .impersonation import on_signout

    on_signout(request, response)


def _coworkers():
    from .coworker import adapter

    return adapter()


APP = AppSpec(
    name="desk",
    title="Service Management",
    description="Incidents, service catalog requests, approvals, knowledge base and CMDB: the IT service desk.",
    icon=ICON,
    package_dir=Path(__file__).parent,
    router=_router,
    seed=_seed,
    seed_after=("crm",),
    color="#62d84e",
    order=20,
    home_path="/",
    data_files=("models.py", "seed", "choices.py"),
    templates_setup=_templates_setup,
    # bookkeeping, like the CRM's (who wrote a record last is in sys_updated_by); task SLA timers follow the incident's own changes (never the agent's
    # direct work), so they are not changes a verifier should count either
    volatile=("*.updated_at", "*.sys_updated_by", "desk_task_sla"),
    messaging=_coworkers,
    on_signout=_signout,
)
