"""Service desk pages: server-side render time at the default scale (target: median <= 20 ms CPU),
measured as every app's pages are (bench/_render.py): lists (plain, grouped), forms of incidents,
problems and changes, the dashboard, signed in as a service desk analyst."""

from __future__ import annotations

from . import _render

ANALYST = """SELECT u.id, u.username FROM identity_user u JOIN desk_group_member m ON m.user_id = u.id
             JOIN desk_group g ON g.id = m.group_id WHERE g.name = 'Service Desk' AND u.title = 'Service Desk Analyst' ORDER BY u.id"""


def _pages(conn, _user_id: int) -> _render.Pages:
    one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
    inc = one("SELECT id FROM desk_incident WHERE state = 'In Progress' ORDER BY id DESC LIMIT 1")
    prb = one("SELECT p.id FROM desk_problem p ORDER BY (SELECT count(*) FROM desk_incident i WHERE i.problem_id = p.id) DESC, p.id LIMIT 1")
    chg = one("SELECT id FROM desk_change WHERE state = 'Scheduled' ORDER BY id LIMIT 1")
    return [
        ("home", "/"), ("dashboard", "/dashboard"),
        ("incident list", "/incident_list.do"), ("incident list filtered", "/incident_list.do?sysparm_query=stateINNew,In Progress,On Hold^priority<=3"),
        ("incident list grouped", "/incident_list.do?sysparm_query=stateINNew,In Progress,On Hold^GROUPBYassignment_group"),
        ("incident list breached", "/incident_list.do?sysparm_query=sla_breached=true"),
        ("incident form", f"/incident.do?sys_id={inc}"), ("problem list", "/problem_list.do"), ("problem form", f"/problem.do?sys_id={prb}"),
        ("change list", "/change_request_list.do"), ("change form", f"/change_request.do?sys_id={chg}"),
        ("task SLA list", "/task_sla_list.do?sysparm_query=has_breached=true"), ("CI form", "/cmdb_ci.do?sys_id=420"),
        ("kb article", "/kb_view.do?sysparm_article=KB0010118"),
    ]


def main(repeat: int = 15, warmup: int = 2) -> None:
    _render.run("Desk", "desk.localhost", ANALYST, _pages, repeat=repeat, warmup=warmup)


if __name__ == "__main__":
    main()
