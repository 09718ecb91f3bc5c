"""Knowledge article metadata a knowledge_admin maintains (title, category, workflow state), shared by
the article's form and the Table API. The article's text is the generator's (trusted HTML) and stays
as it is."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from ..identity.models import User
from ..world import WorldClock
from . import choices as C
from .forms import F, assign, validate as validate_fields, values_of
from .models import KnowledgeArticle

FIELDS: dict[str, F] = {f.name: f for f in [
    F("short_description", "title", "Title", max_len=200),
    F("kb_category", "category", "Category", max_len=60),
    F("workflow_state", "workflow_state", "Workflow", "choice", tuple(C.KB_STATES)),
]}


def current_values(article: KnowledgeArticle) -> dict[str, Any]:
    return values_of(FIELDS, article, {})


def validate(session: Session, data: dict[str, Any], article: KnowledgeArticle, _user: User | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    return validate_fields(session, FIELDS, data, current_values(article), lambda _v: list(FIELDS))


def apply(session: Session, article: KnowledgeArticle, values: dict[str, Any], _notes: str, _user: User, clock: WorldClock) -> KnowledgeArticle:
    if values.get("workflow_state") == "Published" and article.workflow_state != "Published":
        article.published_on = clock.now.date()
    assign(article, FIELDS, values)
    article.updated_at = clock.now
    session.add(article)
    session.flush()
    return article
