"""Signed session cookies and single-sign-on tokens shared by the portal and every app.

A session names the user and the world it belongs to, and carries a session id so that signing
out anywhere signs out everywhere (the host keeps the revoked ids).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from itsdangerous import BadSignature, SignatureExpired, URLSafeSerializer, URLSafeTimedSerializer

SESSION_COOKIE = "sbx_session"
WORLD_COOKIE = "sbx_world"
FLASH_COOKIE = "sbx_flash"
SSO_MAX_AGE_S = 120


@dataclass(frozen=True)
class SessionData:
    username: str
    world_id: str
    sid: str


class Signer:
    def __init__(self, secret: str) -> None:
        self._session = URLSafeSerializer(secret, salt="sbx-session")
        self._sso = URLSafeTimedSerializer(secret, salt="sbx-sso")
        self._flash = URLSafeSerializer(secret, salt="sbx-flash")

    def session_value(self, username: str, world_id: str, sid: str | None = None) -> str:
        return self._session.dumps({"u": username, "w": world_id, "s": sid or secrets.token_hex(8)})

    def load_session(self, value: str | None) -> SessionData | None:
        if not value:
            return None
        try:
            data = self._session.loads(value)
            return SessionData(username=data["u"], world_id=data["w"], sid=data["s"])
        except (BadSignature, KeyError, TypeError):
            return None

    def sso_token(self, session: SessionData) -> str:
        return self._sso.dumps({"u": session.username, "w": session.world_id, "s": session.sid})

    def load_sso_token(self, token: str) -> SessionData | None:
        try:
            data = self._sso.loads(token, max_age=SSO_MAX_AGE_S)
            return SessionData(username=data["u"], world_id=data["w"], sid=data["s"])
        except (BadSignature, SignatureExpired, KeyError, TypeError):
            return None

    def flash_value(self, payload: dict) -> str:
        return self._flash.dumps(payload)

    def load_flash(self, value: str | None) -> dict | None:
        if not value:
            return None
        try:
            data = self._flash.loads(value)
            return data if isinstance(data, dict) else None
        except BadSignature:
            return None


def session_cookie(secret: str, username: str, world_id: str) -> str:
    """The cookie value that signs ``username`` in to ``world_id`` (the environment uses this)."""
    return Signer(secret).session_value(username, world_id)


def browser_cookies(secret: str, username: str, world_id: str, port: int, apps: list[str] | tuple[str, ...]) -> list[dict]:
    """Playwright cookies that sign ``username`` in to the portal and every app of a host."""
    value = Signer(secret).session_value(username, world_id)
    origins = [f"http://localhost:{port}"] + [f"http://{name}.localhost:{port}" for name in apps]
    cookies = []
    for origin in origins:
        cookies.append({"name": SESSION_COOKIE, "value": value, "url": origin, "httpOnly": True, "sameSite": "Lax"})
        cookies.append({"name": WORLD_COOKIE, "value": world_id, "url": origin, "httpOnly": True, "sameSite": "Lax"})
    return cookies
