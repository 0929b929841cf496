"""Reading the opponents (engine.ai.reading): what a take, a trump on a plain card and a pass make a seat
doubt, how the doubts fade, and worlds dealt with them still agree with everything public."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine import Options
from engine.ai import HeuristicPlayer, Player, SearchPlayer
from engine.ai.reading import COVERED_OVER, LED_LOWER, PASSED, TOOK_PLAIN, TOOK_TRUMP, TRUMPED, Reading
from engine.ai.worlds import Knowledge, Worlds
from engine.game import Game
from engine.moves import parse_move
from engine.views import view
from tests.engine.helpers import card, cards, position

TALON = "Ks Qc Jc Tc 6d 7d Ah Kh Qh Jh 6h"  # the last card face up: hearts are trumps


def watched(g: Game, seat: int, *, tells: bool = False) -> Reading:
    reading = Reading(tells=tells)
    reading.observe(view(g, seat))
    return reading


def test_a_take_makes_the_cards_that_would_have_covered_doubtful() -> None:
    g = position(["8s 8c 6c 7c 9c Td", "9s Ts As 7h 9h Ad"], TALON)
    reading = watched(g, 0)
    g.apply(0, parse_move("l8s"))
    reading.chose(parse_move("l8s"))
    g.apply(1, parse_move("x"))  # seat 0 still holds 8♣ to add: it has a decision to make
    seen = view(g, 0)
    reading.observe(seen)
    doubts = reading.weights(seen)[1]
    for c in cards("9s Ts Ks As"):
        assert doubts[c] == pytest.approx(TOOK_PLAIN)
    for c in cards("7h 9h Jh Qh Kh Ah"):
        assert doubts[c] == pytest.approx(TOOK_TRUMP)
    assert card("Ad") not in doubts and card("Qc") not in doubts


def test_a_trump_on_a_plain_card_makes_the_higher_cards_of_its_suit_doubtful() -> None:
    g = position(["8s 8c 6c 7c 9c Td", "7h 9s Ts 6s Ad Jd"], TALON)
    reading = watched(g, 0)
    g.apply(0, parse_move("l8s"))
    g.apply(1, parse_move("c8s7h"))  # seat 1 holds 9♠ but covers with a trump
    seen = view(g, 0)
    reading.observe(seen)
    doubts = reading.weights(seen)[1]
    assert {c: doubts[c] for c in cards("9s Ts Ks As")} == pytest.approx(
        dict.fromkeys(cards("9s Ts Ks As"), TRUMPED)
    )
    assert not any(c in doubts for c in cards("7s 6s Ah Jd"))


def test_a_bout_left_to_end_makes_the_ranks_on_the_table_doubtful() -> None:
    g = position(["9c 6c Td Jd Qd Kd", "7c As Ts 9d 8d 7h"], TALON, lead=1)
    reading = watched(g, 0)
    g.apply(1, parse_move("l7c"))
    seen = view(g, 0)
    reading.observe(seen)
    reading.chose(parse_move("c7c9c"))
    g.apply(0, parse_move("c7c9c"))
    g.apply(1, parse_move("p"))  # it could add 9♦ or 7♥
    seen = view(g, 0)
    assert seen.bout == 2 and seen.lead == 0
    reading.observe(seen)
    doubts = reading.weights(seen)[1]
    unseen = Knowledge.of(seen).unseen
    sevens_nines = [c for c in cards("7s 7d 9s 9d") if unseen >> c & 1]  # 7♦ in the talon, 9♦ in the hand
    assert sevens_nines and all(doubts[c] < 1 for c in sevens_nines)
    assert all(doubts[c] >= PASSED for c in sevens_nines)  # faded a little: both drew a card since
    assert card("7h") not in doubts and card("9h") not in doubts, "keeping a trump proves little"


def test_a_plain_lead_makes_the_lower_plain_cards_doubtful_when_reading_tells() -> None:
    g = position(["9c 6c Td Jd Qd Kd", "8s 9s As 9d 8d 7h"], TALON, lead=1)
    plain, told = watched(g, 0), watched(g, 0, tells=True)
    g.apply(1, parse_move("l8s"))
    seen = view(g, 0)
    plain.observe(seen)
    told.observe(seen)
    assert plain.weights(seen) == {}, "leads are read only with tells"
    doubts = told.weights(seen)[1]
    assert {c: doubts[c] for c in cards("6s 7s")} == pytest.approx(
        dict.fromkeys(cards("6s 7s"), LED_LOWER["led_lower"])
    )
    assert {c: doubts[c] for c in cards("7c 7d 6d")} == pytest.approx(
        dict.fromkeys(cards("7c 7d 6d"), LED_LOWER["led_lower_other"])
    )
    assert not any(c in doubts for c in cards("8c 8d 9s 6h 7h")), "no doubt about its rank, higher or trumps"
    told.observe(seen)  # the same bout seen again is not read twice
    assert told.weights(seen)[1][card("6s")] == pytest.approx(LED_LOWER["led_lower"])


def test_a_high_cover_makes_the_cheaper_covers_of_its_suit_doubtful_when_reading_tells() -> None:
    g = position(["6s 8c 6c 7c 9c Td", "9s Ts As 7h 9h Ad"], TALON)
    reading = watched(g, 0, tells=True)
    g.apply(0, parse_move("l6s"))
    reading.chose(parse_move("l6s"))
    g.apply(1, parse_move("c6sTs"))  # 7♠, 8♠ or 9♠ would have done
    seen = view(g, 0)
    reading.observe(seen)
    doubts = reading.weights(seen)[1]
    assert {c: doubts[c] for c in cards("7s 8s")} == pytest.approx(
        dict.fromkeys(cards("7s 8s"), COVERED_OVER)
    )
    assert card("9s") in doubts  # in its hand: Worlds ignores cards it knows are not unseen
    assert not any(c in doubts for c in cards("Js Qs Ks As 7h"))


def test_a_doubt_fades_as_the_talon_is_drawn_and_a_new_game_starts_afresh() -> None:
    g = position(["8s 8c 6c 7c 9c Td", "9s Ts As 7h 9h Ad"], TALON)
    reading = watched(g, 0)
    g.apply(0, parse_move("l8s"))
    g.apply(1, parse_move("x"))
    seen = view(g, 0)
    reading.observe(seen)
    fresh = reading.weights(seen)[1][card("Ks")]
    assert fresh < reading.weights(replace(seen, talon=seen.talon // 2))[1][card("Ks")] < 1
    empty = replace(seen, talon=0)
    assert reading.weights(empty) == {}, "once the whole talon is drawn, nothing is left of the doubt"
    reading.observe(view(position(["6s 7s 8s 9s Ts Js", "8c 9c Ac Ad 8d 9d"], TALON, bout=0), 0))
    assert reading.weights(seen) == {}


def test_doubted_cards_are_dealt_into_the_hand_less_often_and_worlds_stay_true() -> None:
    g = position(["8s 8c 6c 7c 9c Td", "9s Ts As 7h 9h Ad"], TALON)
    seen = view(g, 0)
    knowledge = Knowledge.of(seen)
    doubted, plain = card("As"), card("Ad")
    worlds = Worlds(seen, random.Random(5), {1: {doubted: 0.1}})
    uniform = knowledge.slots[1] / knowledge.unseen.bit_count()
    held = {doubted: 0, plain: 0}
    samples = 3000
    for _ in range(samples):
        w = worlds.deal()
        assert w.hands[0] == g.hands[0] and w.hands[1].bit_count() == 6 and len(w.talon) == len(g.talon)
        assert w.talon[0] == g.talon[0], "the face-up trump stays at the bottom"
        assert w.hands[1] | w.hands[0] | sum(1 << c for c in w.talon) == g.hands[1] | g.hands[0] | sum(
            1 << c for c in g.talon
        )
        for c in held:
            held[c] += w.hands[1] >> c & 1
    assert held[plain] / samples == pytest.approx(uniform, abs=0.04)
    assert held[doubted] / samples < uniform / 3


def test_a_reading_player_plays_whole_games_legally() -> None:
    for seed in range(3):
        g = Game.deal(Options(), 2, rng=random.Random(seed))
        seats: list[Player] = [
            SearchPlayer(iterations=30, seed=seed, reads=True, tells=seed == 2),
            HeuristicPlayer(),
        ]
        while g.result is None:
            seat = g.to_act()[0]
            g.apply(seat, seats[seat].choose(view(g, seat)))  # validated: an illegal move would raise
        reading = seats[0].reading  # type: ignore[attr-defined]
        assert reading is not None and reading.log is None
