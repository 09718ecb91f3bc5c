"""Drive: a OneDrive/SharePoint-style file store with Word- and Excel-style editors and a data room."""

from pathlib import Path

from ..registry import AppSpec
from . import models  # noqa: F401  (registers the tables)

ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M10.2 6.5a5.5 5.5 0 0 1 5.1 3.4 4.3 4.3 0 0 1 4.7 4.3 4.3 4.3 0 0 1-4.3 4.3H7a4 4 0 0 1-.9-7.9 5.5 5.5 0 0 1 4.1-4.1z"/></svg>'


def _router():
    from .routes import router

    return router


def _templates_setup(env):
    from .views import file_icon, size_label

    env.filters.update(size_label=size_label)
    env.globals.update(file_icon=file_icon)


def _seed(ctx):
    from .seed import seed_drive

    seed_drive(ctx)


def _fields():
    return {
        "drive_site": {"kind": {"picklist": ["personal", "team", "dataroom"], "required": True}},
        "drive_item": {"kind": {"picklist": ["folder", "document", "sheet", "file"], "required": True}},
        "drive_share": {"role": {"picklist": ["view", "edit"], "required": True}},
        "drive_block": {"style": {"picklist": ["Title", "Heading 1", "Heading 2", "Heading 3", "Normal", "List Bullet", "List Number"]}},
        "drive_contract": {"coc": {"picklist": ["none", "notice", "consent", "termination"]},
                           "assignment": {"picklist": ["free", "consent", "prohibited"]},
                           "liability": {"picklist": ["capped", "uncapped", "none"]}},
    }


APP = AppSpec(
    name="drive",
    title="OneDrive",
    description="Files, documents and spreadsheets: your files, team sites and the deal's data room.",
    icon=ICON,
    package_dir=Path(__file__).parent,
    router=_router,
    seed=_seed,
    seed_after=("crm",),
    color="#0364b8",
    order=40,
    home_path="/my",
    data_files=("models.py", "seed", "formulas.py", "documents.py", "sheets.py", "pdf.py"),
    templates_setup=_templates_setup,
    # The activity log (views, edits) and the version snapshots are bookkeeping of every action.
    volatile=("drive_activity", "drive_version", "drive_item.modified_at", "drive_item.modified_by_id", "drive_item.size", "drive_item.version"),
    fields=_fields,
)
