"""The ring's layout: a loop read clockwise, left to right along the top and back along the bottom."""

from __future__ import annotations

from aton_tui.atlas_zeus.ring import IslandFace, Layout, PersonMark, Ring, token_lines


def test_the_ring_runs_clockwise_along_the_top_then_back_along_the_bottom():
    layout = Layout.fit(16, 80, 7)
    tops = [layout.place(p) for p in range(8)]
    bottoms = [layout.place(p) for p in range(8, 16)]
    assert all(y == 0 for _, y in tops) and [x for x, _ in tops] == sorted(x for x, _ in tops)
    assert all(y == layout.tile_h + 1 for _, y in bottoms)
    assert [x for x, _ in bottoms] == sorted((x for x, _ in bottoms), reverse=True)
    assert bottoms[0][0] == tops[-1][0]  # the loop turns down the right side
    assert bottoms[-1][0] == tops[0][0]  # and comes back up the left side


def test_an_odd_ring_leaves_the_bottom_left_corner_empty_and_the_loop_closes():
    layout = Layout.fit(5, 80, 7)
    assert layout.columns == 3
    assert layout.place(3)[0] == layout.place(2)[0] and layout.place(4)[0] == layout.place(1)[0]


def test_the_tiles_grow_as_islands_leave_the_ring():
    assert Layout.fit(16, 80, 7).tile_w < Layout.fit(6, 80, 7).tile_w


def test_people_that_do_not_fit_are_counted():
    layout = Layout.fit(16, 80, 5)  # one line of people, two tokens on it
    assert (layout.tile_h, layout.per_line) == (2, 2)
    people = tuple(PersonMark(f"R{n}", "red", 20) for n in range(1, 6))
    assert token_lines(people, layout) == [[people[0], 4]]  # the first, and "+4"
    assert token_lines(people[:2], layout) == [[people[0], people[1]]]


def test_a_click_on_a_token_is_its_person_and_elsewhere_on_the_tile_its_island():
    ring = Ring()
    ring.islands = (IslandFace(7, "ordinary", True, (PersonMark("R2", "red", 30), PersonMark("B5", "blue", 20))),
                    IslandFace(9, "volcanic", True))
    layout = Layout.fit(2, 80, 7)
    x, y = layout.place(0)
    assert target_at(ring, layout, x, y) == ("island", 7)
    assert target_at(ring, layout, x, y + 1) == ("person", "R2")
    assert target_at(ring, layout, x + 4, y + 1) == ("person", "B5")
    x, y = layout.place(1)
    assert target_at(ring, layout, x + 1, y + 1) == ("island", 9)


def target_at(ring: Ring, layout: Layout, x: int, y: int):
    return ring.target_at(x, y, layout)
