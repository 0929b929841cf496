"""docs/rules.md §9: who is on the clock, what a timeout does, missed moves and bot takeover."""

from __future__ import annotations

import random

from engine import EventKind, Game, Options
from engine.ai import HeuristicPlayer
from engine.moves import move_str
from engine.views import view
from tests.engine.helpers import card, do, hand, position


def test_a_lead_attacker_who_times_out_leads_the_lowest_plain_card() -> None:
    g = position(["Ah 9s 7d 7h", "8s 8c"], talon="Kc Qh")
    assert g.to_act() == [0]
    timeout_move = g.timeout_move(0)
    assert timeout_move is not None and move_str(timeout_move) == "l7d"
    applied = g.timeout()
    assert applied.events[0].kind is EventKind.TIMED_OUT and applied.events[0].count == 1
    assert g.attack == [card("7d")]


def test_a_lead_attacker_holding_only_trumps_leads_the_lowest_trump() -> None:
    g = position(["Ah 7h", "8s 8c"], talon="Kc Qh")
    g.timeout()
    assert g.attack == [card("7h")]


def test_a_defender_who_times_out_takes() -> None:
    g = position(["7s 9d", "8s 8c"], talon="Kc Qh")
    do(g, 0, "l7s")
    assert g.to_act() == [1]
    g.timeout()
    # Taking ended the bout at once: seat 0 has nothing more to throw in.
    assert card("7s") in hand(g, 1) and g.misses[1] == 1


def test_throwers_who_time_out_pass_and_only_the_lead_attacker_misses() -> None:
    g = position(["7s 7d 6c", "8s 8c 8d Qs", "7c 6h 9s"], talon="Kd Ah")
    do(g, 0, "l7s")
    do(g, 1, "c7s8s")
    assert g.to_act() == [0, 2]
    applied = g.timeout()
    timed = {e.seat: e.count for e in applied.events if e.kind is EventKind.TIMED_OUT}
    assert timed == {0: 1, 2: 0}
    assert any(e.kind is EventKind.BEATEN for e in applied.events)
    assert g.misses == [1, 0, 0]


def test_the_clock_is_on_the_throwers_after_take() -> None:
    g = position(["7s 7d 6c", "8s 8c 8d Qs", "7c 6h 9s"], talon="Kd Ah")
    do(g, 0, "l7s")
    do(g, 1, "x")
    assert g.to_act() == [0, 2]


def test_three_missed_moves_in_a_row_hand_the_seat_to_a_bot() -> None:
    g = Game.deal(Options(), 3, rng=random.Random(3))
    others = HeuristicPlayer()
    missed = 0
    while not g.is_auto(0):
        assert not g.over, "seat 0 kept missing and was never taken over"
        waiting = g.to_act()
        if waiting == [0]:
            missed += int(g.lead == 0 or g.defender == 0)
            applied = g.timeout()
            taken = any(e.kind is EventKind.TAKEN_OVER and e.seat == 0 for e in applied.events)
            assert taken == (missed == 3)
        else:
            seat = next(s for s in waiting if s != 0)
            g.apply(seat, others.choose(view(g, seat)))
    assert missed == 3 and g.misses[0] == 0


def test_a_voluntary_move_resets_the_missed_count_and_the_limit_is_two_with_two_players() -> None:
    g = position(["6c 7c 8c 9c Tc Jc", "6d 7d 8d 9d Td Jd"], talon="Qc Qd Qs Kc Kd Ks Ah")
    g.timeout()  # seat 0 leads: miss 1
    do(g, 1, "x")  # seat 1 takes by itself
    assert g.misses == [1, 0]
    do(g, 0, "l7c")  # seat 0 leads by itself: count back to 0
    assert g.misses == [0, 0]
    g.timeout()  # seat 1 takes: miss 1
    g.timeout()  # seat 0 leads: miss 1
    applied = g.timeout()  # seat 1 takes: miss 2, the bot plays seat 1 from now on
    assert any(e.kind is EventKind.TAKEN_OVER and e.seat == 1 for e in applied.events)
    assert g.is_auto(1) and view(g).seats[1].auto
    applied = g.reclaim(1)
    assert applied.events[0].kind is EventKind.RECLAIMED and not g.is_auto(1) and g.misses[1] == 0


def test_leaving_hands_the_seat_to_a_bot() -> None:
    g = position(["6c 7c", "6d 7d"], talon="Qc Ah")
    applied = g.take_over(0)
    assert applied.events[0].kind is EventKind.TAKEN_OVER and g.is_auto(0)
    assert g.take_over(0).events == ()
