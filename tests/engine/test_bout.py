"""docs/rules.md §4: a bout. Lead, cover, take, throw-in, limits, passes, the end of a bout."""

from __future__ import annotations

from engine import EventKind, Kind, Reason
from tests.engine.helpers import card, cards, do, hand, moves, position, refused


def test_lead_is_one_card_or_several_of_one_rank_and_it_is_mandatory() -> None:
    g = position(["6s 6c 7d 8h 9s Ts", "7s 8s 9c Tc Jc Qc"], talon="Kc Kd Ah")
    assert g.to_act() == [0]
    leads = moves(g, 0)
    assert {"l6s", "l6c", "l6s6c", "l7d", "l8h", "l9s", "lTs"} == leads  # no pass: leading is mandatory
    assert refused(g, 0, "l6s7d") is Reason.LEAD_ONE_RANK
    assert refused(g, 0, "p") is Reason.MUST_LEAD_FIRST
    assert refused(g, 1, "l7s") is Reason.NOT_YOUR_LEAD
    assert refused(g, 0, "lAs") is Reason.NOT_IN_HAND


def test_the_first_card_of_a_bout_is_the_lead_attackers_alone() -> None:
    g = position(["7s 8s", "9s 9c", "7c 8c"], talon="Kc Kd Ah")
    assert moves(g, 2) == set()
    assert refused(g, 2, "t7c") is Reason.MUST_LEAD_FIRST


def test_cover_with_a_higher_card_of_the_suit_or_any_trump() -> None:
    g = position(["8s 7c 7h 6c 6d Jd", "6s 9s 7d 6h Qh 8d"], talon="Kc Kd Ah")
    do(g, 0, "l8s")
    assert {"c8s9s", "c8s6h", "c8sQh", "x"} == moves(g, 1)
    assert refused(g, 1, "c8s6s") is Reason.DOES_NOT_BEAT
    assert refused(g, 1, "c8s8d") is Reason.DOES_NOT_BEAT
    assert refused(g, 1, "c8sAs") is Reason.NOT_IN_HAND
    # A trump may beat a plain card even though a higher card of its suit is in hand.
    do(g, 1, "c8s6h")
    assert refused(g, 1, "c8s9s") is Reason.ALREADY_COVERED


def test_a_trump_is_beaten_only_by_a_higher_trump() -> None:
    g = position(["7h 7c", "6h Qh As 8d"], talon="Kc Kd Ah")
    do(g, 0, "l7h")
    assert {"c7hQh", "x"} == moves(g, 1)
    assert refused(g, 1, "c7h6h") is Reason.DOES_NOT_BEAT
    assert refused(g, 1, "c7hAs") is Reason.DOES_NOT_BEAT


def test_after_take_throwers_may_still_add_then_the_defender_picks_up_everything() -> None:
    g = position(
        ["7s 8c 9d Td Jd Qd", "8s 6c 6d 9s Ts Js", "7c 8d Kd Ks As Ac"],
        talon="Kc Ah",
    )
    do(g, 0, "l7s")
    do(g, 1, "c7s8s")
    do(g, 0, "t8c")  # the rank of a covering card may be thrown in too
    assert refused(g, 0, "t9d") is Reason.RANK_NOT_ON_TABLE
    do(g, 1, "x")
    assert g.taking and moves(g, 1) == set()
    assert refused(g, 1, "c8cTs") is Reason.ALREADY_TAKING
    do(g, 2, "t7c")  # "наздогін"
    assert g.to_act() == [2]  # seat 0 has no 7 or 8 left: passed automatically
    applied = do(g, 2, "p")
    picked = next(e for e in applied.events if e.kind is EventKind.PICKED_UP)
    assert picked.seat == 1 and set(picked.cards) == set(cards("7s 8s 8c 7c"))
    assert set(cards("7s 8s 8c 7c 6c 6d 9s Ts Js")) == hand(g, 1)
    # The defender took, so they skip: the next player after them leads, against the player after that.
    assert (g.lead, g.defender) == (2, 0)
    # The lead attacker draws first: seat 0 gets both talon cards.
    assert set(cards("Kc Ah")) <= hand(g, 0)


def test_throw_in_by_all_lets_every_non_defender_add() -> None:
    g = position(["7s 9d", "8s 8c 8d 9s", "7c Jd", "7d Qd"], talon="Kc Ah")
    do(g, 0, "l7s")
    assert "t7c" in moves(g, 2) and "t7d" in moves(g, 3)


def test_throw_in_by_neighbours_only_lets_the_defenders_neighbours_add() -> None:
    g = position(["7s 9d", "8s 8c 8d 9s", "7c Jd", "7d Qd", "7h Ad"], talon="Kc Ah", throw_in="neighbours")
    do(g, 0, "l7s")
    assert "t7c" in moves(g, 2)
    assert moves(g, 3) == set() and moves(g, 4) == set()
    assert refused(g, 3, "t7d") is Reason.NOT_A_THROWER
    assert refused(g, 1, "t8s") is Reason.DEFENDER_CANNOT_THROW


def test_unbeaten_cards_may_never_outnumber_the_defenders_hand() -> None:
    g = position(["7s 7c 7d 9d Td Jd", "8s Qs", "Kd Ks"], talon="Kc Ah")
    assert refused(g, 0, "l7s7c7d") is Reason.TOO_MANY_FOR_DEFENDER
    do(g, 0, "l7s7c")
    assert refused(g, 0, "t7d") is Reason.TOO_MANY_FOR_DEFENDER
    do(g, 1, "c7s8s")
    # One card left in hand and one unbeaten card on the table: nothing more may come.
    assert refused(g, 0, "t7d") is Reason.TOO_MANY_FOR_DEFENDER


def test_the_limit_is_the_defenders_hand_at_the_start_not_the_shrinking_hand() -> None:
    # The defender starts with 3 cards: three attack cards may come, one after another, each covered.
    g = position(["7s 7c 7d 9d Td Jd", "8s 8c 8d"], talon="Kc Qc Ah")
    do(g, 0, "l7s")
    do(g, 1, "c7s8s")
    do(g, 0, "t7c")
    do(g, 1, "c7c8c")
    do(g, 0, "t7d")
    applied = do(g, 1, "c7d8d")
    beaten = next(e for e in applied.events if e.kind is EventKind.BEATEN)
    assert len(beaten.cards) == 6


def test_at_most_six_attack_cards_per_bout() -> None:
    hands = ["7s 7c 7d 7h 9d 9h", "8s 8c 9s 9c Ts Tc Js Jc", "8d 8h Ks Kc Kd Ad"]
    g = position(hands, talon="Qs Qc Qh")
    do(g, 0, "l7s7c7d7h")
    do(g, 1, "c7s9s")
    do(g, 0, "t9d", "t9h")
    do(g, 1, "c7c8c")
    assert refused(g, 2, "t8d") is Reason.CAP_REACHED
    # "До завала": only the defender's hand limits the bout.
    g = position(hands, talon="Qs Qc Qh", attack_cap="defender_hand")
    do(g, 0, "l7s7c7d7h")
    do(g, 1, "c7s9s")
    do(g, 0, "t9d", "t9h")
    do(g, 1, "c7c8c")
    do(g, 2, "t8d")
    assert len(g.attack) == 7


def test_first_bout_allows_five_attack_cards_and_a_reached_cap_ends_the_bout() -> None:
    hands = ["6s 6c 6d 7h 8c Ks", "7s 7c 7d 8h Kc 9s"]
    g = position(hands, talon="Qs Ah", bout=0)
    do(g, 0, "l6s6c6d")
    do(g, 1, "c6s7s", "c6c7c", "c6d7d")
    do(g, 0, "t7h")
    do(g, 1, "c7h8h")
    do(g, 0, "t8c")
    applied = do(g, 1, "c8cKc")
    # Seat 0 still holds K♠ (a rank on the table), but five cards is the first bout's cap: beaten at once.
    assert any(e.kind is EventKind.BEATEN for e in applied.events)
    assert (g.lead, g.bout) == (1, 1)


def test_first_bout_five_off_and_later_bouts_allow_six() -> None:
    hands = ["6s 6c 6d 7h 8c Ks", "7s 7c 7d 8h Kc 9s"]
    for g in (position(hands, talon="Qs Ah", bout=0, first_bout_five=False), position(hands, talon="Qs Ah")):
        do(g, 0, "l6s6c6d")
        do(g, 1, "c6s7s", "c6c7c", "c6d7d")
        do(g, 0, "t7h")
        do(g, 1, "c7h8h")
        do(g, 0, "t8c")
        do(g, 1, "c8cKc")
        assert g.to_act() == [0] and "tKs" in moves(g, 0)


def test_24_card_deck_has_no_first_bout_limit_by_default() -> None:
    g = position(["9s 9c 9d Th Jc Ks", "Ts Tc Td Jh Qc Kc"], talon="Qs Ah", bout=0, deck=24)
    assert g.attack_limit == 6


def test_a_pass_holds_until_the_table_changes() -> None:
    g = position(["7s 7d 6c 6d 6s Qd", "8s 8d 9c 9d Ts Td", "7c 6h 9s Jc Jd Js"], talon="Kd Ah")
    do(g, 0, "l7s")
    assert g.to_act() == [1]
    assert refused(g, 0, "p") is Reason.NOTHING_TO_PASS  # the defender is still to answer
    do(g, 1, "c7s8s")
    assert g.to_act() == [0, 2]
    do(g, 0, "p")
    assert moves(g, 0) == set() and g.to_act() == [2]
    assert refused(g, 0, "t7d") is Reason.PASSED_ALREADY
    do(g, 2, "t7c")
    assert "t7d" in moves(g, 0)  # the table changed: seat 0 may act again
    do(g, 1, "c7c9c")
    do(g, 0, "p")
    applied = do(g, 2, "p")
    assert any(e.kind is EventKind.BEATEN for e in applied.events)
    assert g.lead == 1


def test_throwers_with_nothing_to_add_pass_automatically() -> None:
    g = position(["7s 9d", "8s Qc"], talon="Kd Ah")
    do(g, 0, "l7s")
    applied = do(g, 1, "c7s8s")
    assert [e.kind for e in applied.events][:2] == [EventKind.COVERED, EventKind.BEATEN]
    assert (g.lead, g.defender) == (1, 0)  # beaten: the defender leads next


def test_a_defender_with_no_cards_left_ends_the_bout() -> None:
    g = position(["7s 7c 9d", "8s"], talon="Kd Qd Jd Td 9c Ah")
    do(g, 0, "l7s")
    applied = do(g, 1, "c7s8s")
    assert any(e.kind is EventKind.BEATEN for e in applied.events)
    assert card("7c") in hand(g, 0)


def test_only_the_defender_covers_and_takes() -> None:
    g = position(["7s 7c 9d", "8s 8c", "Ts Js"], talon="Kd Ah")
    do(g, 0, "l7s")
    assert refused(g, 2, "x") is Reason.NOT_DEFENDER
    assert refused(g, 2, "c7sTs") is Reason.NOT_DEFENDER
    assert not g.kind_allowed(2, Kind.TAKE)
    assert refused(g, 7, "x") is Reason.NO_SUCH_SEAT


def test_with_neighbours_a_lead_attacker_passed_over_by_a_transfer_no_longer_throws_in() -> None:
    # docs/rules.md §4.4: only the defender's two nearest neighbours throw in; the lead attacker has no right
    # of its own. Ann (0) leads on Bob (1), who transfers to Cid (2): Cid's neighbours are Bob and Dan (3).
    g = position(
        ["7s 7c Jd", "7d 9d Qd", "8s 8c 8d 9s Ts", "7h Ad Kc"],
        talon="Kh Ah",
        variant="transfer",
        throw_in="neighbours",
    )
    do(g, 0, "l7s")
    do(g, 1, "r7d")
    assert g.defender == 2
    do(g, 2, "c7s8s")
    assert refused(g, 0, "t7c") is Reason.NOT_A_THROWER and moves(g, 0) == set()
    assert "t7h" in moves(g, 3)
    assert 0 not in g.to_act()


def test_with_neighbours_in_team_play_the_nearest_opponent_on_each_side_throws_in_not_the_lead() -> None:
    # 3×3, Bob (seat 1) is out: Ann (0) attacks the next opponent in play, Dan (3). Dan's nearest opponents
    # in play are Cid (2) and Eve (4); Ann is neither, so she does not throw in.
    g = position(
        ["7s 7c", "", "7d Jd", "8s 8c 9s Ts", "7h Ad", "Kc Qc"], trump="h", teams=True, throw_in="neighbours"
    )
    do(g, 0, "l7s")
    assert g.defender == 3
    do(g, 3, "c7s8s")
    assert refused(g, 0, "t7c") is Reason.NOT_A_THROWER
    assert "t7d" in moves(g, 2) and "t7h" in moves(g, 4)
    assert moves(g, 5) == set()  # Dan's partner
