"""List View Charts: the New Chart dialog's save and a chart's delete.

  POST /listcharts/<objects>/new     view, name, chart_type, aggregate, aggregate_field, group_field, return_to
  POST /listcharts/<id>/delete       return_to

A refused New Chart shows the list again (422) with the dialog open, the values typed and the messages.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from starlette.datastructures import QueryParams

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import redirect
from .. import listcharts
from .. import listviews as LV
from ..models import ListViewChart
from ..objects import OBJECTS
from ..views import SPECS
from .lists import BY_PATH, add_query, render_list, safe_return

router = APIRouter(include_in_schema=False)
FIELDS = ("name", "chart_type", "aggregate", "aggregate_field", "group_field")


def _back(form, path: str) -> str:  # noqa: ANN001
    back = safe_return(form.get("return_to"), path)
    return back if urlsplit(back).path == path else path


@router.post("/listcharts/{objects}/new")
async def new_chart(objects: str, request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    object_key = BY_PATH.get(objects)
    if object_key is None:
        raise HTTPException(404, "This object doesn't exist.")
    info = OBJECTS[object_key]
    form = await request.form()
    back = _back(form, info.path)
    query = QueryParams(urlsplit(back).query)
    spec, _current, _filters = LV.spec_with(SPECS[object_key], session, user, query.get("view"))
    view_key = spec.view(query.get("view")).key
    values = {k: str(form.get(k) or "").strip() for k in FIELDS}
    errors = listcharts.check(spec, values)
    if errors:
        return render_list(request, session, user, clock, object_key, query, status_code=422,
                           chart_state={"values": values, "errors": errors})
    chart = ListViewChart(object_type=object_key, view_key=view_key, owner_id=user.id, name=values["name"],
                          chart_type=values["chart_type"], aggregate=values["aggregate"],
                          aggregate_field=values["aggregate_field"] if values["aggregate"] != "count" else None,
                          group_field=values["group_field"], created_at=clock.now, updated_at=clock.now, created_by_id=user.id)
    session.add(chart)
    session.commit()
    url = add_query(back, charts="1", chart=str(chart.id))
    return redirect(request, url, toast=f'Chart "{chart.name}" was created.')


@router.post("/listcharts/{chart_id:int}/delete")
async def delete_chart(chart_id: int, request: Request, session: SessionDep, user: CurrentUser) -> Response:
    chart = session.get(ListViewChart, chart_id)
    if chart is None or chart.owner_id != user.id:
        raise HTTPException(404, "This chart doesn't exist or has been deleted.")
    path, name = OBJECTS[chart.object_type].path, chart.name
    form = await request.form()
    session.delete(chart)
    session.commit()
    return redirect(request, _back(form, path), toast=f'Chart "{name}" was deleted.')
