"""docs/rules.md §1-§3: decks, seating, options, the deal, the trump, who leads first."""

from __future__ import annotations

import random

import pytest
from pydantic import ValidationError

from engine import Game, Opening, Options, OptionsError, RematchLead, Variant
from engine.cards import card_str, deck
from engine.views import view
from tests.engine.helpers import card, cards, do, hand, position


def test_deck_sizes_hold_the_right_ranks() -> None:
    assert {card_str(c)[:-1] for c in deck(24)} == {"9", "10", "J", "Q", "K", "A"}
    assert {card_str(c)[:-1] for c in deck(36)} == {"6", "7", "8", "9", "10", "J", "Q", "K", "A"}
    assert len(deck(52)) == 52 and len(deck(36)) == 36 and len(deck(24)) == 24


@pytest.mark.parametrize(("size", "most"), [(24, 4), (36, 6), (52, 6)])
def test_a_table_seats_at_most_deck_over_six_players(size: int, most: int) -> None:
    options = Options(deck=size)
    assert options.max_players == most
    Game.deal(options, most, rng=random.Random(1))
    with pytest.raises(OptionsError):
        Game.deal(options, most + 1, rng=random.Random(1))
    with pytest.raises(OptionsError):
        Game.deal(options, 1, rng=random.Random(1))


def test_defaults_follow_the_rules() -> None:
    o = Options()
    assert (o.variant, o.deck, o.throw_in, o.attack_cap, o.rematch_lead, o.move_timer) == (
        Variant.THROW_IN,
        36,
        "all",
        "six",
        RematchLead.LOSER,
        30,
    )
    assert o.first_bout_limit and Options(deck=52).first_bout_limit and not Options(deck=24).first_bout_limit
    assert o.transfer_first_bout and not o.show_trump_transfer and o.draw and not o.teams


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"deck": 24, "seats": 6}, "seats 2 to 4"),
        ({"seats": 7}, "seats 2 to 6"),
        ({"show_trump_transfer": True}, "needs the transfer variant"),
        ({"teams": True, "seats": 5}, "4 or 6"),
        ({"teams": True, "deck": 24, "seats": 3}, "4 or 6"),
        ({"move_timer": 20}, "move_timer"),
    ],
)
def test_impossible_options_are_refused_with_a_clear_message(
    options: dict[str, object], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        Options.model_validate(options)


def test_team_play_needs_four_or_six_players() -> None:
    with pytest.raises(OptionsError, match="4 or 6 players, not 3"):
        Options(teams=True).check_players(3)
    Options(teams=True).check_players(4)
    Options(teams=True, deck=24).check_players(4)


def test_deal_gives_six_each_and_turns_the_next_card_as_the_last_of_the_talon() -> None:
    order = deck(36)
    g = Game.deal(Options(), 2, deck=order)
    assert g.hand(0) == order[0:6] and g.hand(1) == order[6:12]
    assert g.trump_card == order[12] and g.trump == order[12] & 3
    assert len(g.talon) == 36 - 12
    # Draw order: the cards after the turned one, then the turned trump itself.
    assert list(reversed(g.talon)) == [*order[13:], order[12]]


def test_the_face_up_trump_is_the_last_card_drawn() -> None:
    # Seat 0 leads 6♠ and seat 1 takes; seat 0 draws one card: the talon's only card, the face-up trump.
    g = position(["6s 7s 8s 9s Ts Js", "6c 7c 8c 9c Tc Jc"], talon="Ah", lead=0)
    do(g, 0, "l6s")
    do(g, 1, "x")
    assert card("Ah") in hand(g, 0)
    assert g.talon == []
    # Everybody saw who took the face-up trump.
    assert view(g, 1).trump_card_seat == 0


@pytest.mark.parametrize(("size", "players"), [(36, 6), (24, 4)])
def test_full_deal_trump_is_the_last_card_dealt_and_public_until_played(size: int, players: int) -> None:
    order = deck(size)
    random.Random(7).shuffle(order)
    g = Game.deal(Options(deck=size), players, deck=order)
    last = order[-1]
    assert g.talon == [] and g.trump == last & 3 and g.trump_card == last
    assert last in hand(g, players - 1)
    public = view(g)
    assert public.trump_card == last and public.trump_card_seat == players - 1
    assert last in public.seats[players - 1].known
    assert public.hand == ()


def test_full_deal_public_trump_stops_being_tracked_once_played() -> None:
    g = position(
        ["6s 7s", "8s 9s", "Ts Js", "Qs Ks", "As 6c", "7c 6h"],
        trump_card="6h",
        lead=5,
    )
    assert view(g).trump_card_seat == 5
    do(g, 5, "l6h")
    assert view(g).trump_card_seat is None and view(g).seats[5].known == ()


def test_seeded_deals_are_reproducible_and_the_default_shuffle_varies() -> None:
    a = Game.deal(Options(), 4, rng=random.Random(42))
    b = Game.deal(Options(), 4, rng=random.Random(42))
    assert a == b
    deals = {tuple(Game.deal(Options(), 2).hands) for _ in range(5)}
    assert len(deals) > 1


def test_explicit_deck_must_be_the_whole_deck() -> None:
    with pytest.raises(ValueError, match="permutation"):
        Game.deal(Options(), 2, deck=deck(36)[:-1])


def test_first_lead_is_the_lowest_trump_and_everybody_is_told_why() -> None:
    g = Game.setup(Options(), [cards("Ah 7s"), cards("Kh 6s"), cards("6d 9h")], cards("Kc Qh"))
    assert g.trump == card("Qh") & 3
    assert g.lead == 2 and g.defender == 0
    assert g.opening == (Opening.LOWEST_TRUMP, card("9h"))
    assert view(g).opening == ("lowest_trump", card("9h"))


def test_without_trumps_in_hands_the_lowest_card_leads_ties_by_suit_order() -> None:
    # Trump is hearts (the face-up card); nobody holds a heart. 6♦ and 6♠ tie on rank; ♠ comes first.
    g = Game.setup(Options(), [cards("6d 7c"), cards("6s 9c")], cards("Kc Qh"))
    assert g.lead == 1
    assert g.opening == (Opening.LOWEST_CARD, card("6s"))


@pytest.mark.parametrize(
    ("rule", "leader", "opening"),
    [
        (RematchLead.LOSER, 2, Opening.LOSER),
        (RematchLead.LEFT_OF_LOSER, 0, Opening.LEFT_OF_LOSER),
        (RematchLead.LOWEST_TRUMP, 1, Opening.LOWEST_TRUMP),
    ],
)
def test_rematch_lead_option(rule: RematchLead, leader: int, opening: str) -> None:
    hands = [cards("Ah 7s"), cards("6h 8s"), cards("6d 9c")]
    g = Game.setup(Options(rematch_lead=rule), hands, cards("Kc Qh"), loser=2)
    assert g.lead == leader and g.opening[0] == opening


def test_after_a_draw_the_lowest_trump_leads() -> None:
    # A draw has no loser: the caller passes none, and lowest trump applies whatever rematch_lead says.
    g = Game.setup(Options(rematch_lead=RematchLead.LOSER), [cards("Ah 7s"), cards("6h 8s")], cards("Kc Qh"))
    assert g.lead == 1 and g.opening[0] == Opening.LOWEST_TRUMP


def test_play_goes_clockwise_and_skips_players_who_are_out() -> None:
    # Seat 1 is already out (no cards, talon empty): seat 0 attacks seat 2.
    g = position(["6s 7s", "", "8s 9s", "Ts Js"], trump="h", lead=0)
    assert g.out[1] >= 0
    assert g.defender == 2


def test_the_card_that_makes_a_player_lead_is_public() -> None:
    g = Game.setup(Options(), [cards("Ah 7s"), cards("Kh 6s"), cards("6d 9h")], cards("Kc Qh"))
    assert view(g).seats[2].known == (card("9h"),)
