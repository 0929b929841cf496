"""Callback data: round trips, at most 64 bytes, and anything malformed decodes to None."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.callbacks import (
    MAX_BYTES,
    ArenaPress,
    MovePress,
    PickPress,
    ReclaimPress,
    UnpickPress,
    decode,
    encode,
)
from engine.cards import parse_card
from engine.moves import parse_move


def test_presses_round_trip() -> None:
    for press in (
        MovePress(12, 345, parse_move("c7h8h")),
        MovePress(1, 0, parse_move("x")),
        PickPress(7, 8, parse_card("Qs")),
        UnpickPress(9),
        ReclaimPress(10),
        ArenaPress(11, "berserk"),
    ):
        assert decode(encode(press)) == press


def test_the_longest_press_fits_in_64_bytes() -> None:
    longest = MovePress(2**63 - 1, 10**9, parse_move("l6s6c6d6h"))
    assert len(encode(longest).encode()) <= MAX_BYTES


@given(st.text(max_size=80))
def test_garbage_never_raises(data: str) -> None:
    press = decode(data)
    assert press is None or decode(encode(press)) == press


def test_known_bad_data_is_refused() -> None:
    for data in [
        "",
        "m",
        "m:1:2",
        "m:1:2:zz",
        "m:-1:2:x",
        "k:1:2:1z",
        "b:x",
        "q:1",
        "m:1:2:x:extra",
        "b:" + "9" * 70,
    ]:
        assert decode(data) is None, data
