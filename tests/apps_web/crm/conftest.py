"""Helpers the CRM tests share: a role's first user, and a write to a world for a test's set-up."""

from __future__ import annotations


def user_of(world, role: str) -> str:  # noqa: ANN001
    return world.one(f"SELECT username FROM identity_user WHERE role = '{role}' ORDER BY id")[0]


def write(world, query: str, *args) -> None:  # noqa: ANN001, ANN002
    with world.connect(readonly=False) as conn:
        conn.execute(query, args)
        conn.commit()
