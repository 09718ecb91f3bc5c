"""The knowledge base: home with search and bases (``/kb``), results (``/kb?q=``), an article
(``/kb_view.do?sysparm_article=KB0010001`` or ``?sys_id=``), and the article's form
(``/kb_knowledge.do?sys_id=``) where a knowledge_admin edits its title, category and workflow."""

from __future__ import annotations

import re
from html import unescape

from fastapi import APIRouter, Request
from markupsafe import Markup
from sqlalchemy import Integer, cast, func, or_, select

from ...deps import ClockDep, SessionDep
from ...identity.models import User
from ...ui import redirect, render
from ..common import get_or_404
from ..models import KnowledgeArticle
from .. import articles as A
from .. import choices as C
from ..acl import DeskUser, access
from .denied import denied

router = APIRouter()
_TAGS = re.compile(r"<[^>]+>")


def snippet(body: str, words: list[str], size: int = 220) -> str:
    text = unescape(_TAGS.sub(" ", body))
    text = re.sub(r"\s+", " ", text).strip()
    low = text.lower()
    at = min((low.find(w) for w in words if low.find(w) >= 0), default=0)
    start = max(0, at - 60)
    return ("..." if start else "") + text[start:start + size] + ("..." if start + size < len(text) else "")


@router.get("/kb")
def kb_home(request: Request, session: SessionDep, user: DeskUser, q: str = "", kb: str = ""):
    published = KnowledgeArticle.workflow_state == "Published"
    bases = session.execute(select(KnowledgeArticle.knowledge_base, func.count()).where(published).group_by(KnowledgeArticle.knowledge_base).order_by(KnowledgeArticle.knowledge_base)).all()
    results = None
    words = [w for w in q.lower().split() if w]
    if words or kb:
        stmt = select(KnowledgeArticle).where(published)
        if kb:
            stmt = stmt.where(KnowledgeArticle.knowledge_base == kb)
        for w in words:  # every word must appear in the title or the text
            stmt = stmt.where(or_(func.lower(KnowledgeArticle.title).contains(w, autoescape=True), func.lower(KnowledgeArticle.body).contains(w, autoescape=True)))
        title_hits = sum((cast(func.lower(KnowledgeArticle.title).contains(w, autoescape=True), Integer) for w in words), KnowledgeArticle.id * 0)
        rows = session.execute(stmt.order_by(title_hits.desc(), KnowledgeArticle.view_count.desc()).limit(50)).scalars().all()
        results = [{"a": a, "snippet": snippet(a.body, words)} for a in rows]
    featured = session.execute(select(KnowledgeArticle).where(published).order_by(KnowledgeArticle.view_count.desc()).limit(8)).scalars().all()
    return render(request, "desk/kb_home.html", q=q, kb=kb, bases=bases, results=results, featured=featured, search_query=None)


@router.get("/kb_view.do")
def kb_view(request: Request, session: SessionDep, user: DeskUser, sysparm_article: str = "", sys_id: str = ""):
    if sysparm_article:
        article = session.execute(select(KnowledgeArticle).where(KnowledgeArticle.number == sysparm_article)).scalars().first()
        if article is None:
            get_or_404(session, KnowledgeArticle, None, "knowledge article")
    else:
        article = get_or_404(session, KnowledgeArticle, sys_id, "knowledge article")
    if not access(request).can_row("kb_knowledge", "read", article):
        return denied(request, f"Knowledge article {article.number} is {article.workflow_state.lower()}.")
    author = session.get(User, article.author_id) if article.author_id else None
    # The text is written by the generator from escaped parts and never edited (only title, category, workflow): its HTML is trusted.
    return render(request, "desk/kb_article.html", a=article, author=author, body=Markup(article.body),
                  can_edit=access(request).by_role("kb_knowledge", "write"))


def _form(request, session, article: KnowledgeArticle, values: dict, errors: dict):
    return render(request, "desk/kb_form.html", a=article, v=values, errors=errors, C=C,
                  can_edit=access(request).by_role("kb_knowledge", "write"))


@router.get("/kb_knowledge.do")
def kb_form(request: Request, session: SessionDep, user: DeskUser, sys_id: str = ""):
    article = get_or_404(session, KnowledgeArticle, sys_id, "knowledge article")
    if not access(request).can_row("kb_knowledge", "read", article):
        return denied(request)
    return _form(request, session, article, A.current_values(article), {})


@router.post("/kb_knowledge.do")
async def kb_save(request: Request, session: SessionDep, user: DeskUser, clock: ClockDep):
    form = await request.form()
    article = get_or_404(session, KnowledgeArticle, form.get("sys_id"), "knowledge article")
    if not access(request).by_role("kb_knowledge", "write"):
        return denied(request, "Editing knowledge articles is for knowledge administrators (knowledge_admin).")
    data = {name: form.get(name) for name in A.FIELDS if name in form}
    values, errors = A.validate(session, data, article)
    if errors:
        return _form(request, session, article, values, errors)
    A.apply(session, article, values, "", user, clock)
    session.commit()
    return redirect(request, f"/kb_view.do?sys_id={article.id}", toast=f"Knowledge article {article.number} updated.")
