"""docs/rules.md §6-§7: drawing, going out, places, the durak, draws, pogony."""

from __future__ import annotations

from engine import EventKind, Reason
from tests.engine.helpers import do, moves, position, refused


def test_draw_order_lead_attacker_first_then_clockwise_defender_last() -> None:
    g = position(["7s 7c 9d Td Jd Qd", "8s 8c 8d 6d Ts Js", "7d 9c 9s Qs Ks Kc"], talon="Tc Jc Ah")
    do(g, 0, "l7s")
    do(g, 1, "c7s8s")
    do(g, 0, "t7c")
    do(g, 1, "c7c8c")
    do(g, 2, "t7d")
    applied = do(g, 1, "c7d8d")
    drew = [(e.seat, e.count) for e in applied.events if e.kind is EventKind.DREW]
    # Seat 0 draws 2, seat 2 the last card; the defender, last in order, gets nothing.
    assert drew == [(0, 2), (2, 1)]


def test_a_player_goes_out_mid_bout_and_the_defender_still_answers() -> None:
    g = position(["7s", "8s 9c"], trump="h")
    applied = do(g, 0, "l7s")
    assert [e.kind for e in applied.events] == [EventKind.LED, EventKind.WENT_OUT]
    assert not g.over and g.to_act() == [1]
    do(g, 1, "c7s8s")
    assert g.result is not None
    assert (g.result.durak, g.result.places, g.result.draw) == (1, (1, 2), False)


def test_a_defender_who_takes_the_last_attack_is_the_durak() -> None:
    g = position(["7s", "8c 9c"], trump="h")
    do(g, 0, "l7s")
    do(g, 1, "x")
    assert g.result is not None and g.result.durak == 1


def test_last_two_out_in_one_bout_is_a_draw_with_the_draw_option() -> None:
    g = position(["7s", "8s"], trump="h")
    do(g, 0, "l7s")
    do(g, 1, "c7s8s")
    r = g.result
    assert r is not None
    assert (r.draw, r.drawn, r.durak, r.losers, r.places) == (True, (0, 1), None, (), (1, 1))


def test_without_the_draw_option_the_last_defender_is_the_durak() -> None:
    g = position(["7s", "8s"], trump="h", draw=False)
    do(g, 0, "l7s")
    do(g, 1, "c7s8s")
    r = g.result
    assert r is not None
    assert (r.draw, r.durak, r.places) == (False, 1, (1, 2))


def test_players_going_out_in_the_same_bout_share_a_place() -> None:
    g = position(["7s", "8s", "9c Tc"], trump="h")
    do(g, 0, "l7s")
    do(g, 1, "c7s8s")
    r = g.result
    assert r is not None and r.durak == 2 and r.places == (1, 1, 3)


def test_places_follow_the_order_of_going_out() -> None:
    g = position(["7s", "8s 6c", "9c Tc"], trump="h")
    do(g, 0, "l7s")  # seat 0 out in bout 1
    do(g, 1, "c7s8s")  # beaten; seat 1 leads against seat 2
    do(g, 1, "l6c")  # seat 1 out in bout 2
    do(g, 2, "c6c9c")
    r = g.result
    assert r is not None and r.places == (1, 2, 3) and r.durak == 2


def test_a_defender_going_out_by_covering_ends_the_bout_and_the_next_active_player_leads() -> None:
    g = position(["7s 7c", "8s", "9c Tc Jh"], trump="h")
    do(g, 0, "l7s")
    applied = do(g, 1, "c7s8s")
    kinds = [e.kind for e in applied.events]
    assert kinds[:3] == [EventKind.COVERED, EventKind.WENT_OUT, EventKind.BEATEN]
    # Nobody throws in to a defender with no cards, though seat 0 holds a 7. The defender should lead
    # next but is out: the next active player clockwise leads.
    assert (g.lead, g.defender) == (2, 0)
    assert g.out[1] >= 0 and not g.over


def test_pogony_when_the_winning_move_is_plain_sixes() -> None:
    g = position(["6s 6c", "Ks Qc Kc"], trump="h")
    do(g, 0, "l6s6c")
    do(g, 1, "c6sKs")
    do(g, 1, "c6cQc")
    assert g.result is not None and g.result.durak == 1 and g.result.pogony


def test_no_pogony_with_a_trump_six_or_another_rank() -> None:
    g = position(["6h", "Ks Qc"], trump="h")
    do(g, 0, "l6h")
    do(g, 1, "x")
    assert g.result is not None and g.result.durak == 1 and not g.result.pogony
    g = position(["7s", "Ks Qc"], trump="h")
    do(g, 0, "l7s")
    do(g, 1, "c7sKs")
    assert g.result is not None and not g.result.pogony


def test_no_more_moves_once_the_game_is_over() -> None:
    g = position(["7s", "8c 9c"], trump="h")
    do(g, 0, "l7s")
    do(g, 1, "x")
    assert moves(g, 1) == set() and g.to_act() == []
    assert refused(g, 1, "l8c") is Reason.GAME_OVER


def test_the_game_is_decided_when_the_defender_keeps_cards_whatever_they_do() -> None:
    g = position(["7s", "8s 9c"], trump="h")
    assert not g.decided()
    do(g, 0, "l7s")  # Ann is out; Bob holds two cards against one: the durak whatever he does
    assert g.decided()
    even = position(["7s", "8s"], trump="h")
    do(even, 0, "l7s")
    assert not even.decided()  # Bob may still cover and go out: a draw
    strict = position(["7s", "8s"], trump="h", draw=False)
    do(strict, 0, "l7s")
    assert strict.decided()  # without the draw option the last defender is the durak either way


def test_a_decided_game_ends_the_same_whatever_is_played() -> None:
    import random

    from engine import Game, Options, Variant

    rng = random.Random(11)
    decided = 0
    for game in range(300):
        options = [Options(), Options(variant=Variant.TRANSFER), Options(teams=True), Options(draw=False)][
            game % 4
        ]
        g = Game.deal(options, 4 if options.teams else rng.choice([2, 3, 4]), rng=rng)
        while not g.over:
            if g.decided():
                decided += 1
                endings = set()
                for _ in range(4):
                    trial = g.copy()
                    while not trial.over:
                        seat = rng.choice(trial.actors())
                        trial.apply(seat, rng.choice(trial.legal_moves(seat)))
                    endings.add(trial.result)
                assert len(endings) == 1, endings
            seat = rng.choice(g.actors())
            g.apply(seat, rng.choice(g.legal_moves(seat)))
    assert decided > 30
