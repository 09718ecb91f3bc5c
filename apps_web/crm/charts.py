"""The CRM's charts come from the UI kit (``apps_web/ui/charts.py``), shared with the other apps."""

from ..ui.charts import PALETTE, Bar, bar_chart, money_chart, short_money

__all__ = ["Bar", "PALETTE", "bar_chart", "money_chart", "short_money"]
