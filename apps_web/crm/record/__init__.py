"""Record pages of the CRM: layouts (highlights, details), related lists, the activity timeline."""

from .layouts import LAYOUTS, FieldDef, Layout
from .page import TABS, build_page, build_path, raw, record_label, record_title
from .related import RelatedList, activity_scope, related_list, related_lists
from .timeline import build_timeline

__all__ = [
    "LAYOUTS",
    "TABS",
    "FieldDef",
    "Layout",
    "RelatedList",
    "activity_scope",
    "build_page",
    "build_path",
    "build_timeline",
    "raw",
    "record_label",
    "record_title",
    "related_list",
    "related_lists",
]
