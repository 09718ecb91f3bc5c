"""The trajectory viewer: a local web page to debug runs visually (``sandbox view <run folder>``)."""

from .app import create_app, serve

__all__ = ["create_app", "serve"]
