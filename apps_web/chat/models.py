"""Chat objects. Tables are prefixed ``chat_``; authors and members are users of the shared identity.

A conversation is a team's channel or a chat (1:1 or group). Everything another part of the world
needs to read or answer a message is in rows: who is in a conversation (``chat_member``, with the
id of the last message each member has read), the messages (``parent_id`` is the channel post a
reply belongs to), who was mentioned, who reacted, and the Activity notifications a person gets.

Cross-app references (the CRM deal or the desk incident a post is about) are plain ids.
Datetimes are naive wall-clock times of the world clock.
"""

from __future__ import annotations

from datetime import date

from pydantic import NaiveDatetime
from sqlmodel import Field, SQLModel

USER_FK = "identity_user.id"

CONVERSATION_KINDS = ("channel", "oneonone", "group")
REACTIONS = ("like", "heart", "laugh", "surprised", "sad", "angry")
REACTION_LABELS = {"like": "Like", "heart": "Heart", "laugh": "Laugh", "surprised": "Surprised", "sad": "Sad", "angry": "Angry"}
REACTION_EMOJI = {"like": "\U0001F44D", "heart": "\u2764\uFE0F", "laugh": "\U0001F606", "surprised": "\U0001F62E", "sad": "\U0001F622", "angry": "\U0001F621"}
ACTIVITY_KINDS = ("mention", "reply", "reaction")
PRESENCE = ("Available", "Busy", "In a meeting", "Away", "Offline", "Out of office")


class Team(SQLModel, table=True):
    __tablename__ = "chat_team"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=120, index=True)
    description: str = Field(default="", max_length=500)
    created_at: NaiveDatetime | None = None


class Conversation(SQLModel, table=True):
    __tablename__ = "chat_conversation"
    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=10, index=True)  # channel | oneonone | group
    team_id: int | None = Field(default=None, foreign_key="chat_team.id", index=True)  # channels only
    name: str = Field(default="", max_length=120)  # the channel's name, or a group chat's topic (may be empty)
    description: str = Field(default="", max_length=500)
    created_by_id: int | None = Field(default=None, foreign_key=USER_FK)
    created_at: NaiveDatetime | None = None
    last_message_at: NaiveDatetime | None = Field(default=None, index=True)  # orders the chat list


class Member(SQLModel, table=True):
    __tablename__ = "chat_member"
    id: int | None = Field(default=None, primary_key=True)
    conversation_id: int = Field(foreign_key="chat_conversation.id", index=True)
    user_id: int = Field(foreign_key=USER_FK, index=True)
    role: str = Field(default="member", max_length=10)  # owner | member
    last_read_id: int = 0  # the newest message id this member has seen (unread = newer messages by others)
    joined_at: NaiveDatetime | None = None


class Message(SQLModel, table=True):
    __tablename__ = "chat_message"
    id: int | None = Field(default=None, primary_key=True)
    conversation_id: int = Field(foreign_key="chat_conversation.id", index=True)
    parent_id: int | None = Field(default=None, foreign_key="chat_message.id", index=True)  # the post a thread reply answers
    author_id: int = Field(foreign_key=USER_FK, index=True)
    subject: str = Field(default="", max_length=200)  # a channel post's optional subject line
    body_html: str = ""  # sanitised HTML
    body_text: str = ""  # the plain text, for search, previews and verifiers
    created_at: NaiveDatetime | None = Field(default=None, index=True)
    edited_at: NaiveDatetime | None = None
    deleted_at: NaiveDatetime | None = None  # "This message has been deleted." (the row stays, like Teams)
    # What the message is about in other apps (plain ids; none when unrelated).
    crm_account_id: int | None = Field(default=None, index=True)
    crm_opportunity_id: int | None = Field(default=None, index=True)
    desk_incident_id: int | None = Field(default=None, index=True)
    updated_at: NaiveDatetime | None = None  # bookkeeping: verifiers ignore it


class Mention(SQLModel, table=True):
    __tablename__ = "chat_mention"
    id: int | None = Field(default=None, primary_key=True)
    message_id: int = Field(foreign_key="chat_message.id", index=True)
    user_id: int = Field(foreign_key=USER_FK, index=True)


class Reaction(SQLModel, table=True):
    __tablename__ = "chat_reaction"
    id: int | None = Field(default=None, primary_key=True)
    message_id: int = Field(foreign_key="chat_message.id", index=True)
    user_id: int = Field(foreign_key=USER_FK, index=True)
    kind: str = Field(max_length=10)  # like | heart | laugh | surprised | sad | angry
    created_at: NaiveDatetime | None = None


class Activity(SQLModel, table=True):
    """A notification in someone's Activity feed: a mention of them, a reply to their post, a reaction."""

    __tablename__ = "chat_activity"
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key=USER_FK, index=True)  # who is notified
    kind: str = Field(max_length=10)  # mention | reply | reaction
    message_id: int = Field(foreign_key="chat_message.id", index=True)
    actor_id: int = Field(foreign_key=USER_FK)
    created_at: NaiveDatetime | None = None
    is_read: bool = False


class File(SQLModel, table=True):
    """A file shared in a conversation: the bytes live in the world, like the files tab's SharePoint copy."""

    __tablename__ = "chat_file"
    id: int | None = Field(default=None, primary_key=True)
    conversation_id: int = Field(foreign_key="chat_conversation.id", index=True)
    message_id: int | None = Field(default=None, foreign_key="chat_message.id", index=True)
    name: str = Field(max_length=255)
    mime: str = Field(default="application/octet-stream", max_length=120)
    size: int = 0  # bytes
    content: bytes = b""
    uploaded_by_id: int = Field(foreign_key=USER_FK)
    created_at: NaiveDatetime | None = None


class WorkProfile(SQLModel, table=True):
    """When a person works (presence is computed from it and the world clock)."""

    __tablename__ = "chat_work_profile"
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key=USER_FK, index=True, unique=True)
    start_minute: int = 9 * 60  # local start of the working day, minutes after midnight
    end_minute: int = 17 * 60 + 30
    workdays: str = Field(default="01234", max_length=7)  # Monday = 0
    lunch_minute: int = 12 * 60  # Away for 45 minutes from here
    focus_minute: int | None = None  # a daily focus block (Busy) of focus_length minutes, if the person keeps one
    focus_length: int = 0
    ooo_start: date | None = None  # out of office, both days included
    ooo_end: date | None = None
    status_message: str = Field(default="", max_length=200)


TABLES = {"team": Team, "conversation": Conversation, "member": Member, "message": Message, "mention": Mention,
          "reaction": Reaction, "activity": Activity, "file": File, "work_profile": WorkProfile}
