"""The square cursor rests only on legal squares and moves the way the arrows point."""

from aton_tui.board_cursor import BoardCursor, grid_position


def test_squares_sit_on_one_grid_of_three_rows_and_sixteen_columns():
    assert grid_position((1, 0)) == (0, 0)
    assert grid_position((2, 5)) == (1, 5)
    assert grid_position((4, 11)) == (2, 15)


def test_the_cursor_starts_on_the_first_legal_square_and_stays_while_it_is_legal():
    cursor = BoardCursor()
    cursor.offer(((2, 3), (1, 4)))
    assert cursor.square == (1, 4)
    cursor.offer(((2, 3), (1, 4), (3, 0)))
    assert cursor.square == (1, 4)


def test_after_a_choice_the_cursor_goes_to_the_nearest_square_in_the_same_row():
    cursor = BoardCursor()
    cursor.offer(((2, 0), (2, 1), (2, 4), (1, 3)))
    cursor.square = (2, 0)
    cursor.clear()
    assert not cursor.active and cursor.square == (2, 0)
    cursor.offer(((2, 1), (2, 4), (1, 3)))  # (2, 0) was taken
    assert cursor.square == (2, 1)


def test_arrows_skip_to_the_nearest_legal_square_in_their_direction():
    cursor = BoardCursor()
    cursor.offer(((1, 0), (1, 9), (3, 2)))
    cursor.move(0, 1)
    assert cursor.square == (1, 9)  # one column right, two rows down: nearer than temple 3
    cursor.move(0, 1)
    assert cursor.square == (3, 2)
    cursor.move(0, 1)
    assert cursor.square == (3, 2)  # nothing further right: stay
    cursor.move(0, -1)
    assert cursor.square == (1, 0)  # the same row wins over a nearer column
    cursor.move(1, 0)
    assert cursor.square == (1, 9)


def test_a_temple_number_jumps_into_that_temple():
    cursor = BoardCursor()
    cursor.offer(((1, 0), (3, 5), (3, 7)))
    assert cursor.jump(3) and cursor.square == (3, 5)
    assert not cursor.jump(4) and cursor.square == (3, 5)
