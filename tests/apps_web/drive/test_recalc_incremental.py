"""A cell edit recalculates only the edited cells and their dependents; the stored values must stay
exactly what a recalculation of the whole workbook gives. Random edits, fills and pastes (a fixed RNG)
of each kind of seeded workbook of a world, through the same code the editor's route runs, each compared with a full
recalculation of the same inputs, and the cells the edit reports (the grid's repaint list) with the
rows that really changed."""

from __future__ import annotations

import random

import pytest
from sqlmodel import select

from apps_web.drive import sheets as sh
from apps_web.drive.formulas import Dependents, col_name, ref_name
from apps_web.drive.models import Item, Sheet


def _state(session, item_id: int) -> dict[tuple[int, str], tuple[str, str, float | None, str | None]]:
    session.flush()
    return {(r[1], r[4]): (r[5], r[6], r[7], r[8]) for r in sh._load(session, item_id)[2]}


def _full(session, item_id: int) -> dict[tuple[int, str], tuple[str, str, float | None, str | None]]:
    sheets, inputs = sh.workbook_inputs(session, item_id)
    rows = sh.cell_rows(item_id, {s.name: s.id for s in sheets}, inputs)
    return {(r["sheet_id"], r["ref"]): (r["input"], r["value"], r["number"], r["error"]) for r in rows}


def _quoted(name: str) -> str:
    return sh.quoted_sheet(name)


def _random_input(rng: random.Random, names: list[str], here: str, rows: int, cols: int) -> str:
    def ref() -> str:
        return ref_name(rng.randint(1, rows), rng.randint(1, cols))

    def area() -> str:
        r1, c1 = rng.randint(1, rows), rng.randint(1, cols)
        return f"{ref_name(r1, c1)}:{ref_name(min(rows, r1 + rng.randint(0, 6)), min(cols, c1 + rng.randint(0, 2)))}"

    other = _quoted(rng.choice(names))
    kind = rng.randrange(14)
    if kind < 4:
        return str(rng.choice([rng.randint(-50, 5000), round(rng.uniform(0, 900), 2), 0]))
    if kind == 4:
        return rng.choice(["Travel", "Meals", "TRUE", "", "n/a", "#N/A", "1,250"])
    if kind == 5:
        return f"={ref()}+{ref()}*2"
    if kind == 6:
        return f"=SUM({area()})"
    if kind == 7:
        return f"={other}!{ref()}-1"
    if kind == 8:
        return f"=SUM({other}!{area()})/{ref()}"
    if kind == 9:
        letter = col_name(rng.randint(1, cols))
        return rng.choice([f"=SUM({letter}:{letter})", f'=COUNTIF({letter}:{letter},"")', f"=COUNTA({letter}:{letter})"])
    if kind == 10:
        return f'=IF({ref()}>100,{ref()},"low")'
    if kind == 11:
        return f"=IFERROR(VLOOKUP({ref()},{area()},1,FALSE),0)"
    if kind == 12:
        return f"=AVERAGE({area()})&\" \"&{other}!{ref()}"
    return f"=Missing!A1+{ref()}" if rng.random() < 0.5 else f"={ref()}"  # a sheet that isn't there, or a plain reference (loops)


def test_random_edits_match_a_full_recalculation(store):
    world = store.create(0)
    rng = random.Random(20261202)
    with world.session() as session:
        items = list(session.exec(select(Item).where(Item.kind == "sheet", Item.deleted_at.is_(None)).order_by(Item.id)).all())
        items = list({item.name: item for item in reversed(items)}.values())  # one of each kind (every rep has a My Pipeline)
        assert len(items) >= 6
        edits_checked = incremental = 0
        for item in items:
            sheets = list(session.exec(select(Sheet).where(Sheet.item_id == item.id).order_by(Sheet.position)).all())
            names = [s.name for s in sheets]
            _, inputs = sh.workbook_inputs(session, item.id)
            rows = max([r for cells in inputs.values() for r, _c in cells] + [5]) + 1
            cols = max([c for cells in inputs.values() for _r, c in cells] + [3]) + 1
            assert _state(session, item.id) == _full(session, item.id), f"{item.name}: the seed's values are not a full recalculation"
            for _ in range(6):
                before = _state(session, item.id)
                batch = []
                for _ in range(rng.choice([1, 1, 1, 2, 3])):
                    sheet = rng.choice(names)
                    batch.append((sheet, ref_name(rng.randint(1, rows), rng.randint(1, cols)), _random_input(rng, names, sheet, rows, cols)))
                how = rng.randrange(5)
                if how == 0:  # Ctrl+D over a few rows
                    r, c = rng.randint(1, rows - 3), rng.randint(1, cols)
                    target = sheets[0]
                    batch = [("fill", target.name, ref_name(r, c), ref_name(r + 3, c))]
                    changed, _text = sh.fill_down(session, item.id, target, (r, c, r + 3, c))
                elif how == 1:  # Ctrl+V of a 2x2 block of values and formulas
                    target = rng.choice(sheets)
                    values = [[_random_input(rng, names, target.name, rows, cols) for _ in range(2)] for _ in range(2)]
                    at = (rng.randint(1, rows), rng.randint(1, cols))
                    batch = [("paste", target.name, ref_name(*at), values)]
                    changed, _text = sh.paste(session, item.id, target, at, values)
                else:
                    changed, _text = sh.apply_edits(session, item.id, batch)
                after = _state(session, item.id)
                assert after == _full(session, item.id), f"{item.name}: {batch} left values a full recalculation doesn't give"
                moved = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
                assert {(c.sheet_id, c.ref) for c in changed} == moved, f"{item.name}: {batch} reported other cells than those that changed"
                edits_checked += 1
                incremental += not any(v[3] == "circular" for v in before.values())
        session.rollback()
    assert edits_checked >= 36 and incremental >= 24


def test_dependents_follow_ranges_whole_columns_and_other_sheets():
    inputs = {"Data": {(1, 1): "5", (2, 1): "7", (3, 2): "=SUM(A1:A2)"},
              "Summary": {(1, 1): "=Data!B3*2", (2, 1): "=SUM(Data!A:A)", (3, 1): "=A1+1", (4, 1): "=Nowhere!A1", (5, 1): "9"}}
    deps = Dependents(inputs)
    assert deps.closure({("Data", 2, 1)}) == {("Data", 2, 1), ("Data", 3, 2), ("Summary", 1, 1), ("Summary", 2, 1), ("Summary", 3, 1),
                                             ("Summary", 4, 1)}
    # a cell outside every range reaches only the whole-column SUM (and the formula naming a missing sheet)
    assert deps.closure({("Data", 9, 3)}) == {("Data", 9, 3), ("Summary", 2, 1), ("Summary", 4, 1)}
    assert deps.closure({("Summary", 5, 1)}) == {("Summary", 5, 1), ("Summary", 4, 1)}


@pytest.mark.parametrize("loop", [("=Y1", "=Z1"), ("=Y1+1", "=SUM(Z1:Z1)")])
def test_an_edit_that_closes_or_breaks_a_loop_matches_a_full_recalculation(store, loop):
    world = store.create(0)
    with world.session() as session:
        item = session.exec(select(Item).where(Item.kind == "sheet").order_by(Item.id)).first()
        sheet = session.exec(select(Sheet).where(Sheet.item_id == item.id).order_by(Sheet.position)).first().name
        sh.apply_edits(session, item.id, [(sheet, "Z1", loop[0]), (sheet, "AA1", "=Z1*3")])
        sh.apply_edits(session, item.id, [(sheet, "Y1", loop[1])])  # closes the loop Z1 -> Y1 -> Z1
        state = _state(session, item.id)
        assert state == _full(session, item.id)
        ids = {k[1]: v for k, v in state.items()}
        assert ids["Z1"][3] == ids["Y1"][3] == "circular" and ids["AA1"][1] == "0"
        sh.apply_edits(session, item.id, [(sheet, "Y1", "4")])  # the loop is broken: its cells compute again
        state = _state(session, item.id)
        assert state == _full(session, item.id)
        assert not any(v[3] == "circular" for v in state.values())
        assert {k[1]: v for k, v in state.items()}["AA1"][1] == ("12" if loop[0] == "=Y1" else "15")
        session.rollback()
