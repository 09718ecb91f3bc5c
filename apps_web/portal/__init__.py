"""The portal at localhost: sign-in, the app launcher, the user menu and world controls."""

from .app import build_portal

__all__ = ["build_portal"]
