"""Record pages of the CRM: layouts (highlights, details), related lists, the activity timeline, and
the page of one activity."""

from .activity import build_activity_page
from .layouts import ACTIVITY_LAYOUTS, LAYOUTS, FieldDef, Layout, layout_of
from .page import TABS, build_page, build_path, raw, record_label, record_title
from .related import RelatedList, activity_scope, related_list, related_lists
from .timeline import build_timeline

__all__ = [
    "ACTIVITY_LAYOUTS",
    "LAYOUTS",
    "TABS",
    "FieldDef",
    "Layout",
    "RelatedList",
    "activity_scope",
    "build_activity_page",
    "build_page",
    "build_path",
    "build_timeline",
    "layout_of",
    "raw",
    "record_label",
    "record_title",
    "related_list",
    "related_lists",
]
