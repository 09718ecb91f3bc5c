"""Chat: a Microsoft Teams-style app (teams and channels with threads, 1:1 and group chats,
@mentions and Activity, reactions, edits and deletes, unread markers, search, files, presence)."""

from pathlib import Path

from ..registry import AppSpec
from . import models  # noqa: F401  (registers the tables)

ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 5.5A1.5 1.5 0 0 1 5.5 4h13A1.5 1.5 0 0 1 20 5.5v9a1.5 1.5 0 0 1-1.5 1.5H10l-4.2 3.6A.5.5 0 0 1 5 19.2V16h.5A1.5 1.5 0 0 1 4 14.5zM8 8.5v1.5h8V8.5zm0 3v1.5h5v-1.5z"/></svg>'


def _router():
    from .routes import router

    return router


def _templates_setup(env):
    from .service import editable
    from .views import chat_time, reply_names, safe_body, size_label

    env.filters.update(safe_body=safe_body, chat_time=chat_time)
    env.globals.update(editable=editable, size_label=size_label, reply_names=reply_names)


def _seed(ctx):
    from .seed import seed_chat

    seed_chat(ctx)


def _fields():
    from .models import ACTIVITY_KINDS, CONVERSATION_KINDS, REACTIONS

    return {
        "chat_conversation": {"kind": {"picklist": list(CONVERSATION_KINDS), "required": True}},
        "chat_reaction": {"kind": {"picklist": list(REACTIONS), "required": True}},
        "chat_activity": {"kind": {"picklist": list(ACTIVITY_KINDS), "required": True}},
        "chat_member": {"role": {"picklist": ["owner", "member"]}},
    }



def _coworkers():
    from .coworker import adapter

    return adapter()


APP = AppSpec(
    name="chat",
    title="Teams",
    description="Chat: teams and channels, direct and group chats with colleagues, mentions, reactions and files.",
    icon=ICON,
    package_dir=Path(__file__).parent,
    router=_router,
    seed=_seed,
    seed_after=("crm", "desk"),
    color="#5b5fc7",
    order=25,
    home_path="/chat",
    data_files=("models.py", "seed"),
    templates_setup=_templates_setup,
    # Reading moves read markers and clears notifications: bookkeeping, not work a verifier grades.
    volatile=("chat_member.last_read_id", "chat_activity.is_read", "chat_message.updated_at", "chat_conversation.last_message_at"),
    fields=_fields,
    messaging=_coworkers,
)
