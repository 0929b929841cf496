"""Move strings, views (hidden information) and snapshots (exact JSON round trips)."""

from __future__ import annotations

import json
import pickle
import random

import pytest

from engine import Game, Options, Variant, parse_move
from engine.moves import PASS, TAKE, cover, describe, lead, move_str, show_trump, throw_in, transfer
from engine.snapshot import SnapshotError, dumps, loads, to_dict
from engine.views import view
from tests.engine.helpers import card, cards, do, position


@pytest.mark.parametrize("text", ["l6s", "l6s6c6d", "t7h", "c7h8h", "x", "p", "r7d", "s7d", "lAs", "cTdAh"])
def test_move_strings_round_trip(text: str) -> None:
    assert move_str(parse_move(text)) == text


def test_move_constructors_match_strings() -> None:
    assert move_str(lead(card("6c"), card("6s"))) == "l6s6c"
    assert move_str(throw_in(card("7h"))) == "t7h"
    assert move_str(cover(card("7h"), card("8h"))) == "c7h8h"
    assert (move_str(TAKE), move_str(PASS)) == ("x", "p")
    assert move_str(transfer(card("7d"))) == "r7d" and move_str(show_trump(card("7d"))) == "s7d"
    assert describe(parse_move("c7h8h")) == "cover 7♥ with 8♥"


@pytest.mark.parametrize(
    "text", ["", "z", "l", "l6", "l6s6s", "t7h8h", "c7h", "x6s", "p7d", "t1h", "t7z", "r7d7c"]
)
def test_malformed_move_strings_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_move(text)


def test_a_seat_view_holds_its_own_hand_and_no_other() -> None:
    g = position(["7s 9d Kh", "8s 8c 6h", "Ts Js Qh"], talon="Kc Ah")
    mine = view(g, 1)
    assert set(mine.hand) == set(cards("8s 8c 6h"))
    assert mine.hand[-1] == card("6h")  # trumps last
    assert [s.cards for s in mine.seats] == [3, 3, 3]
    public = view(g)
    assert public.hand == () and public.moves == () and public.seen == ()
    # Nothing in either view names a card of another hand.
    for v, own in ((mine, set(cards("8s 8c 6h"))), (public, set())):
        others = {c for s in range(3) for c in g.hand(s)} - own
        exposed = (
            set(v.hand) | {c for s in v.seats for c in s.known} | {c for pair in v.table for c in pair if c}
        )
        assert not exposed & others


def test_cards_picked_up_are_known_to_everybody() -> None:
    g = position(["7s 9d", "8c 6h", "Ts Js"], talon="Kc Ah")
    do(g, 0, "l7s")
    do(g, 1, "x")
    assert view(g, 2).seats[1].known == (card("7s"),)


def test_views_cross_into_a_worker_process_intact() -> None:
    """A view is pickled to the computer players' worker processes: mid-game and finished, on both builds."""
    g = position(["7s 9d", "8c 6h", "Ts Js"], talon="Kc Ah")
    do(g, 0, "l7s")
    do(g, 1, "x")
    over = position(["7s", "8s"], trump="h")
    do(over, 0, "l7s")
    do(over, 1, "c7s8s")
    for seen in (view(g, 2), view(g), view(over, 0)):
        back = pickle.loads(pickle.dumps(seen))
        assert back == seen and type(back) is type(seen)
    assert pickle.loads(pickle.dumps(view(over, 0))).result.places == over.result.places  # type: ignore[union-attr]


def test_a_fresh_deal_round_trips_through_json() -> None:
    g = Game.deal(Options(variant=Variant.TRANSFER), 4, rng=random.Random(5))
    assert loads(dumps(g)) == g
    assert dumps(loads(dumps(g))) == dumps(g)


def test_a_finished_game_round_trips_through_json() -> None:
    g = position(["7s", "8s"], trump="h")
    do(g, 0, "l7s")
    do(g, 1, "c7s8s")
    back = loads(dumps(g))
    assert back == g and back.result == g.result


def test_a_snapshot_carries_its_schema_version() -> None:
    data = to_dict(Game.deal(Options(), 2, rng=random.Random(1)))
    assert data["schema_version"] == 1
    data["schema_version"] = 99
    with pytest.raises(SnapshotError, match="schema"):
        loads(json.dumps(data))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(talon=d["talon"][3:]), "missing"),
        (lambda d: d["hands"].__setitem__(0, d["hands"][0] + " " + d["hands"][1].split()[0]), "two places"),
        (lambda d: d.update(lead=9), "out of range"),
        (lambda d: d.update(options={"deck": 35}), "invalid snapshot"),
        (lambda d: d.update(misses=[0]), "misses"),
        (lambda d: d.pop("bout"), "invalid snapshot"),
    ],
)
def test_bad_snapshots_are_refused_with_a_clear_error(mutate: object, message: str) -> None:
    data = to_dict(Game.deal(Options(), 2, rng=random.Random(1)))
    assert callable(mutate)
    mutate(data)
    with pytest.raises(SnapshotError, match=message):
        loads(json.dumps(data))


def test_snapshot_that_is_not_json_is_refused() -> None:
    with pytest.raises(SnapshotError):
        loads("{not json")
    with pytest.raises(SnapshotError):
        loads("[1, 2]")
