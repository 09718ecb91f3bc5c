"""Template helpers (filled in with the pages)."""
