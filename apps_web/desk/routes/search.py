"""Global search (``/text_search.do?q=``): a number opens its record; text searches incidents,
knowledge articles, catalog items and configuration items."""

from __future__ import annotations

from fastapi import APIRouter, Request
from sqlalchemy import func, or_, select

from ...deps import SessionDep
from ...ui import redirect, render
from ..models import CatalogItem, ConfigItem, Incident, KnowledgeArticle, Request as ScRequest, RequestedItem
from ..acl import DeskUser, access

router = APIRouter()
TABLE_OF = {"INC": "incident", "KB": "kb_knowledge", "RITM": "sc_req_item", "REQ": "sc_request"}
NUMBERED = (("INC", Incident, "/incident.do?sys_id={id}"), ("KB", KnowledgeArticle, "/kb_view.do?sys_id={id}"),
            ("RITM", RequestedItem, "/sc_req_item.do?sys_id={id}"), ("REQ", ScRequest, "/sc_request.do?sys_id={id}"))


@router.get("/text_search.do")
def text_search(request: Request, session: SessionDep, user: DeskUser, q: str = ""):
    acc = access(request)
    text = q.strip()
    upper = text.upper()
    for prefix, model, url in NUMBERED:
        if upper.startswith(prefix) and upper[len(prefix):].isdigit():
            rec = session.execute(select(model).where(model.number == upper)).scalars().first()
            if rec is not None and acc.can_row(TABLE_OF[prefix], "read", rec):
                return redirect(request, url.format(id=rec.id))
    groups = []
    if text:
        like = text.lower()
        mine = acc.row_filter("incident", Incident)
        incs = session.execute(select(Incident).where(or_(func.lower(Incident.short_description).contains(like, autoescape=True), Incident.number == upper),
                                                      *([mine] if mine is not None else []))
                               .order_by(Incident.number.desc()).limit(20)).scalars().all()
        groups.append(("Incidents", [(i.number, i.short_description, f"/incident.do?sys_id={i.id}") for i in incs]))
        kbs = session.execute(select(KnowledgeArticle).where(KnowledgeArticle.workflow_state == "Published", func.lower(KnowledgeArticle.title).contains(like, autoescape=True)).limit(10)).scalars().all()
        groups.append(("Knowledge", [(a.number, a.title, f"/kb_view.do?sys_id={a.id}") for a in kbs]))
        items = session.execute(select(CatalogItem).where(func.lower(CatalogItem.name).contains(like, autoescape=True))).scalars().all()
        groups.append(("Catalog Items", [(c.name, c.short_description, f"/sc_cat_item.do?sys_id={c.id}") for c in items]))
        mine = acc.row_filter("cmdb_ci", ConfigItem)
        cis = session.execute(select(ConfigItem).where(func.lower(ConfigItem.name).contains(like, autoescape=True), *([mine] if mine is not None else []))
                              .limit(10)).scalars().all()
        groups.append(("Configuration Items", [(c.name, c.ci_class, f"/cmdb_ci.do?sys_id={c.id}") for c in cis]))
    return render(request, "desk/search.html", q=text, groups=groups, search_query=text)
