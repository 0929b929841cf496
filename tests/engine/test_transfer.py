"""docs/rules.md §5: the transfer variant ("переводной"), its limits, and transfer by showing a trump."""

from __future__ import annotations

from engine import EventKind, Reason
from engine.views import view
from tests.engine.helpers import card, do, hand, moves, position, refused

THREE = ["7s 9d Td Jd Qd Kd", "7c 7h 6c 6d Ts Js", "7d 8c 9c 9s Qs Ks"]


def test_transfer_passes_the_attack_on_and_the_old_defender_becomes_a_thrower() -> None:
    g = position(THREE, talon="Kc Ah", variant="transfer")
    do(g, 0, "l7s")
    assert {"r7c", "r7h"} <= moves(g, 1)
    applied = do(g, 1, "r7c")
    event = applied.events[0]
    assert (event.kind, event.seat, event.cards, event.target) == (EventKind.TRANSFERRED, 1, (card("7c"),), 2)
    assert g.defender == 2 and g.lead == 0
    assert g.to_act() == [2]
    assert "t7h" in moves(g, 1)  # the previous defender now throws in
    # The new defender answers every attack card, and may transfer again: here back to the lead attacker.
    assert {"r7d", "x"} <= moves(g, 2)
    do(g, 2, "r7d")
    assert g.defender == 0 and g.table() == [(card("7s"), None), (card("7c"), None), (card("7d"), None)]


def test_no_transfer_once_a_card_is_covered() -> None:
    g = position(["7s 7d Td", "7c 8s 6c 6d", "9c 9s Qs Ks"], talon="Kc Ah", variant="transfer")
    do(g, 0, "l7s")
    do(g, 1, "c7s8s")
    do(g, 0, "t7d")
    assert not any(m.startswith("r") for m in moves(g, 1))
    assert refused(g, 1, "r7c") is Reason.TRANSFER_AFTER_COVER


def test_no_transfer_after_take() -> None:
    g = position(["7s 7d Td", "7c 8s 6c 6d", "9c 9s Qs Ks"], talon="Kc Ah", variant="transfer")
    do(g, 0, "l7s")
    do(g, 1, "x")
    assert refused(g, 1, "r7c") is Reason.TRANSFER_AFTER_TAKE


def test_transfer_needs_the_next_player_to_hold_enough_cards() -> None:
    # After the transfer there would be 2 attack cards; seat 2 holds only 1.
    g = position(["7s 9d Td", "7c 8s 6c 6d", "Ks"], talon="Kc Ah", variant="transfer")
    do(g, 0, "l7s")
    assert "r7c" not in moves(g, 1)
    assert refused(g, 1, "r7c") is Reason.TRANSFER_TOO_FEW
    g = position(["7s 9d Td", "7c 8s 6c 6d", "Ks Qs"], talon="Kc Ah", variant="transfer")
    do(g, 0, "l7s")
    assert "r7c" in moves(g, 1)


def test_transfer_needs_the_rank_of_the_attack() -> None:
    g = position(THREE, talon="Kc Ah", variant="transfer")
    do(g, 0, "l7s")
    assert refused(g, 1, "r6c") is Reason.TRANSFER_RANK
    assert refused(g, 1, "rAs") is Reason.NOT_IN_HAND


def test_transfer_in_the_first_bout_is_an_option() -> None:
    g = position(THREE, talon="Kc Ah", variant="transfer", bout=0)
    do(g, 0, "l7s")
    assert "r7c" in moves(g, 1)
    g = position(THREE, talon="Kc Ah", variant="transfer", bout=0, transfer_first_bout=False)
    do(g, 0, "l7s")
    assert refused(g, 1, "r7c") is Reason.TRANSFER_FIRST_BOUT
    g = position(THREE, talon="Kc Ah", variant="transfer", bout=1, transfer_first_bout=False)
    do(g, 0, "l7s")
    assert "r7c" in moves(g, 1)


def test_no_transfer_in_the_throw_in_variant() -> None:
    g = position(THREE, talon="Kc Ah")
    do(g, 0, "l7s")
    assert refused(g, 1, "r7c") is Reason.TRANSFER_NOT_PLAYED


def test_showing_a_trump_transfers_and_keeps_the_card_once_per_bout() -> None:
    hands = ["7s 7c 9d Td Jd Qd", "7h 8s 6c 6d Ts Js"]
    g = position(hands, talon="Kc Ah", variant="transfer", show_trump_transfer=True)
    do(g, 0, "l7s")
    assert "s7h" in moves(g, 1) and "s7c" not in moves(g, 1)
    applied = do(g, 1, "s7h")
    assert applied.events[0].kind is EventKind.SHOWED_TRUMP and applied.events[0].target == 0
    assert card("7h") in hand(g, 1) and g.attack == [card("7s")]
    assert view(g).seats[1].known == (card("7h"),)  # shown: now everybody knows
    do(g, 0, "r7c")  # seat 0 passes it straight back
    assert g.defender == 1
    # Transferred to a second time in the same bout: the trump must be put down this time.
    assert "s7h" not in moves(g, 1) and "r7h" in moves(g, 1)
    assert refused(g, 1, "s7h") is Reason.SHOWN_ALREADY


def test_showing_a_trump_is_off_by_default_and_must_be_a_trump() -> None:
    g = position(THREE, talon="Kc Ah", variant="transfer")
    do(g, 0, "l7s")
    assert refused(g, 1, "s7h") is Reason.SHOW_TRUMP_OFF
    g = position(THREE, talon="Kc Ah", variant="transfer", show_trump_transfer=True)
    do(g, 0, "l7s")
    assert refused(g, 1, "s7c") is Reason.NOT_TRUMP


def test_draw_order_after_a_transfer_puts_the_final_defender_last() -> None:
    hands = ["7s 9d Td Jd Qd Kd", "7c 6c 6d Ts Js Qs", "8s 8c 9c 9s Qc Kc", "6s Ac Ad As"]
    g = position(hands, talon="Tc Jc Qh Ah", variant="transfer")
    do(g, 0, "l7s")
    do(g, 1, "r7c")
    do(g, 2, "c7s8s")
    applied = do(g, 2, "c7c8c")
    drew = [(e.seat, e.count) for e in applied.events if e.kind is EventKind.DREW]
    # Lead attacker 0 first, then clockwise skipping the final defender (1, 3), the final defender 2 last,
    # who gets nothing: the talon ran out.
    assert drew == [(0, 1), (1, 1), (3, 2)]
    assert (g.lead, g.defender) == (2, 3)
