"""Helpers of the CRM's JSON API (routes in ``crm/routes/api.py``): output schemas and list queries."""

from .query import API_OBJECTS, ListQuery, QueryError, build_list_query, search_condition
from .schemas import PUBLIC, to_public

__all__ = ["API_OBJECTS", "ListQuery", "PUBLIC", "QueryError", "build_list_query", "search_condition", "to_public"]
