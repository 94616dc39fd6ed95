"""Textual's ``DataTable``, drawn again once its columns have grown to fit new rows.

Textual measures a table's new rows when the table is next idle.  A row drawn before then
(another widget changed, and the screen was drawn meanwhile) is kept in the table's render
caches at the old, narrower widths, and stays cut short — "Ada   in the" for
"Ada 1340  in the lobby" — until the table changes again.  Here a change of the columns'
widths is such a change.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.widgets import DataTable
from textual.widgets.data_table import RowKey


class FittedTable(DataTable):
    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        widths = [column.get_render_width(self) for column in self.columns.values()]
        super()._update_dimensions(new_rows)
        if [column.get_render_width(self) for column in self.columns.values()] != widths:
            self._update_count += 1  # (the key of its render caches: what was drawn at the old widths is not used)
            self.refresh()
