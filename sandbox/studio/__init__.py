"""The demonstration studio: people record demonstrations and author tasks in the browser.

``sandbox studio`` serves a local page to pick a task (or explore a world freely), drive the sandboxed
browser from a live view, and record every input as a step of the canonical action model in the
trajectory format. ``Recorder`` turns raw input into actions; ``StudioSession`` runs one recording;
``create_app`` is the web app; ``draft_task`` turns a free-exploration recording into a task draft.
"""

from .inputs import RawInput, parse_input
from .recorder import Recorder, key_combo, typed_char

__all__ = ["RawInput", "Recorder", "key_combo", "parse_input", "typed_char"]
