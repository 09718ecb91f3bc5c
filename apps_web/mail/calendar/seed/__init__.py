"""The calendar generator: conference rooms, office locations, and about 600 events per unit of
scale over the weeks around the world clock (customer meetings on the CRM's deals with the
contacts as attendees, weekly 1:1s and team meetings as recurring series, internal meetings,
all-hands), with responses that fit each event's date, and the invitations still waiting for an
answer in attendees' inboxes.

It runs inside the mail generator, after the mailboxes and messages exist, and only appends rows
(new ids) with its own RNG namespaces, so the mail messages of a seed never change.
"""

from __future__ import annotations

from .builder import CalendarBuilder


def seed_calendar(ctx, people, crm) -> CalendarBuilder:  # noqa: ANN001
    b = CalendarBuilder(ctx, people, crm)
    b.rooms_and_profiles()
    b.one_on_ones()
    b.team_meetings()
    b.all_hands()
    b.customer_meetings()
    b.internal_meetings()
    b.responses_and_invitations()
    b.insert()
    return b


__all__ = ["seed_calendar"]
