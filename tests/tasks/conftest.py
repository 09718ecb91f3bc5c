"""Task tests use the session's task registry and world store (tests/conftest.py)."""
