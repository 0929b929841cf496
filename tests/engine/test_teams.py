"""docs/rules.md §8: team play. Seats 0, 2 (, 4) play seats 1, 3 (, 5)."""

from __future__ import annotations

import pytest

from engine import Reason
from tests.engine.helpers import do, moves, position, refused


def test_the_defender_is_the_next_active_opponent() -> None:
    g = position(["7s 9d", "", "7c Jd", "8s 8c"], trump="h", teams=True)
    # Seat 1 is out; seat 2 is seat 0's partner, so seat 0 attacks seat 3.
    assert g.defender == 3


def test_the_defenders_partner_does_not_throw_in() -> None:
    g = position(["7s 9d", "8s 8c 8d", "7c Jd", "7d Qd"], talon="Kc Ah", teams=True)
    do(g, 0, "l7s")
    assert "t7c" in moves(g, 2)
    assert moves(g, 3) == set()
    assert refused(g, 3, "t7d") is Reason.NOT_A_THROWER


def test_transfer_goes_to_the_next_active_opponent() -> None:
    g = position(["7s 9d", "7c 8s 8d", "9c Jd Qd", "7d Qs"], talon="Kc Ah", teams=True, variant="transfer")
    do(g, 0, "l7s")
    do(g, 1, "r7c")
    assert g.defender == 2
    # Now seat 0 is the defender's partner: it may not throw in; seats 1 and 3 attack.
    assert g.throwers == (1, 3)
    assert "t7d" in moves(g, 3)


def test_a_defender_out_by_beating_hands_the_lead_to_their_own_team() -> None:
    g = position(["7s 9d", "8s", "9c Jd", "Ts Qs"], trump="h", teams=True)
    do(g, 0, "l7s")
    do(g, 1, "c7s8s")
    assert g.out[1] >= 0
    # Seat 3, the defender's partner, leads (not seat 2, the next player clockwise).
    assert (g.lead, g.defender) == (3, 0)


def test_the_game_ends_when_one_team_holds_all_the_cards_and_that_team_loses() -> None:
    g = position(["7s", "8s 9c", "", "Ts Qs"], trump="h", teams=True)
    do(g, 0, "l7s")
    do(g, 1, "c7s8s")
    r = g.result
    assert r is not None
    assert r.losing_team == 1 and r.losers == (1, 3) and r.durak is None
    assert r.places == (1, 3, 1, 3)


def test_team_play_with_six_players() -> None:
    g = position(["7s 6c", "8s", "9s", "Ts", "Js", "Qs Ks"], trump="h", teams=True)
    assert g.defender == 1
    do(g, 0, "l7s")
    assert g.throwers == (0, 2, 4)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_team_play_refuses_other_player_counts(players: int) -> None:
    from engine import OptionsError

    with pytest.raises(OptionsError):
        position(["7s"] * players, trump="h", teams=True)
