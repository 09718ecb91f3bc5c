"""Mail: an Outlook-on-the-web-style mail app (folders, conversations, search, compose, reply, forward)."""

from pathlib import Path

from ..registry import AppSpec
from . import models  # noqa: F401  (registers the tables)

ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M3 6.5A1.5 1.5 0 0 1 4.5 5h15A1.5 1.5 0 0 1 21 6.5v11a1.5 1.5 0 0 1-1.5 1.5h-15A1.5 1.5 0 0 1 3 17.5zm2 .9v9.6h14V7.4l-7 4.9z"/></svg>'


def _router():
    from .routes import router

    return router


def _templates_setup(env):
    from .html import safe_body
    from .views import list_time

    env.filters.update(safe_body=safe_body, list_time=list_time)


def _seed(ctx):
    from .seed import seed_mail

    seed_mail(ctx)


def _fields():
    return {
        "mail_mailbox": {"kind": {"picklist": ["user", "shared"], "required": True}},
        "mail_folder": {"kind": {"picklist": ["inbox", "drafts", "sent", "archive", "deleted", "junk", "custom"], "required": True}},
        "mail_recipient": {"kind": {"picklist": ["to", "cc", "bcc"], "required": True}},
        "mail_message": {"importance": {"picklist": ["low", "normal", "high"]}},
    }



def _presence(session, user_ids, now):  # noqa: ANN001, ANN202
    from .presence import presence

    return presence(session, user_ids, now)


def _coworkers():
    from .coworker import adapter

    return adapter()


APP = AppSpec(
    name="mail",
    title="Outlook",
    description="Mail: your inbox, conversations with customers and colleagues, search, compose and reply.",
    icon=ICON,
    package_dir=Path(__file__).parent,
    router=_router,
    seed=_seed,
    seed_after=("crm",),
    color="#0f6cbd",
    order=20,
    home_path="/mail/inbox",
    data_files=("models.py", "seed", "delivery.py", "calendar", "options.py"),
    templates_setup=_templates_setup,
    volatile=("mail_message.updated_at", "mail_event.updated_at", "mail_auto_reply.updated_at"),
    fields=_fields,
    messaging=_coworkers,
    extra={"presence": _presence},  # the chat's status from calendars and automatic replies
)
