"""Shared identity: the company's users, password sign-in, signed sessions across apps."""

from .models import Role, User, UserPublic
from .passwords import DEFAULT_PASSWORD, hash_password, verify_password
from .session import SESSION_COOKIE, WORLD_COOKIE, SessionData, Signer, browser_cookies, session_cookie

__all__ = [
    "DEFAULT_PASSWORD",
    "Role",
    "SESSION_COOKIE",
    "SessionData",
    "Signer",
    "User",
    "UserPublic",
    "WORLD_COOKIE",
    "browser_cookies",
    "hash_password",
    "session_cookie",
    "verify_password",
]
