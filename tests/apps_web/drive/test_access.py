"""Who sees what in the drive, read straight from a seeded world (no browser)."""

from __future__ import annotations

from sqlmodel import select

from apps_web.drive.access import visible_ids
from apps_web.drive.models import Share, Site
from apps_web.drive.routes.common import sites_for
from apps_web.identity.models import User
from apps_web.world import WorldStore


def test_the_rails_sites_are_the_top_folders_the_walk_of_every_item_reaches(store: WorldStore) -> None:
    """The left rail's sites (found from the top folders alone) are the team sites and data rooms whose
    top folder the full walk of visible items holds, for every user: with no share, with a personal
    share of a data room, a department's share, and the site's owner."""
    w = store.create(seed=1)
    with w.session() as session:
        users = list(session.exec(select(User)).all())
        sites = list(session.exec(select(Site).where(Site.kind != "personal").order_by(Site.kind, Site.name)).all())
        room = next(s for s in sites if s.kind == "dataroom")
        outsider = next(u for u in users if room.root_id not in visible_ids(session, u) and u.department)
        session.add(Share(item_id=room.root_id, group_name=outsider.department, role="view"))
        session.flush()
        seen: set[tuple[str, ...]] = set()
        for u in users:
            expected = [s for s in sites if s.root_id in visible_ids(session, u)]
            assert sites_for(session, u) == expected, u.username
            seen.add(tuple(s.id for s in expected))
        assert room in sites_for(session, outsider)
        assert len(seen) >= 3  # users who see different sets of sites
        session.rollback()
