"""Property tests over random games, for every variant, deck, option and player count."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from engine import Game, Kind, Options, Reason
from engine.cards import DECK_MASK, cards_of, mask_of
from engine.moves import Move
from engine.playout import random_playout
from engine.snapshot import dumps, loads
from engine.views import view

MAX_STEPS = 3000


@st.composite
def tables(draw: st.DrawFn) -> tuple[Options, int]:
    deck = draw(st.sampled_from([24, 36, 52]))
    teams = draw(st.booleans()) and deck >= 24
    capacity = min(6, deck // 6)
    if teams:
        players = draw(st.sampled_from([p for p in (4, 6) if p <= capacity]))
    else:
        players = draw(st.integers(2, capacity))
    variant = draw(st.sampled_from(["throw_in", "transfer"]))
    options: dict[str, Any] = {
        "deck": deck,
        "teams": teams,
        "variant": variant,
        "throw_in": draw(st.sampled_from(["all", "neighbours"])),
        "attack_cap": draw(st.sampled_from(["six", "defender_hand"])),
        "first_bout_five": draw(st.sampled_from([None, True, False])),
        "transfer_first_bout": draw(st.booleans()),
        "show_trump_transfer": variant == "transfer" and draw(st.booleans()),
        "draw": draw(st.booleans()),
    }
    return Options(**options), players


def check_invariants(g: Game) -> None:
    places = [*g.hands, mask_of(g.talon), g.discard, mask_of(g.attack), mask_of(c for c in g.cover if c >= 0)]
    total = 0
    for m in places:
        assert not total & m, "a card is in two places"
        total |= m
    assert total == DECK_MASK[g.options.deck], "cards were lost or made up"
    assert len(g.talon) == len(set(g.talon))
    assert not (g.talon and g.seats_out), "a seat went out while the talon lasts"
    for s in range(g.players):
        assert g.known[s] & ~g.hands[s] == 0, "a card is 'known' in a hand that does not hold it"
    if g.over:
        return
    assert g.to_act(), "the game waits for nobody"
    for s in g.to_act():
        assert g.legal_moves(s), f"seat {s} is on the clock without a legal move"
    for draw in (0.0, 0.99):
        seat, moves = g.turn(lambda: draw)  # noqa: B023 - called at once
        assert seat in g.to_act() and moves == g.legal_moves(seat), "turn() disagrees with to_act()"
    if g.attack:
        assert g.unbeaten <= g.hands[g.defender].bit_count(), "more unbeaten cards than the defender holds"
        assert len(g.attack) <= g.attack_limit, "attack cap exceeded"
        assert g.unbeaten == sum(1 for c in g.cover if c < 0)
        for a, c in zip(g.attack, g.cover, strict=True):
            if c >= 0:
                assert (c & 3 == a & 3 and c > a) or (c & 3 == g.trump and a & 3 != g.trump), "bad cover"
        assert g.defender not in g.throwers and all(g.team(t) != g.team(g.defender) for t in g.throwers)
    else:
        assert g.hands[g.lead] and g.out[g.lead] < 0
    assert g.out[g.defender] < 0 or not g.attack
    assert g.team(g.defender) != g.team(g.lead) or g.attack


def random_move(rng: random.Random, g: Game) -> Move:
    """A well-formed move that is usually illegal."""
    deck = list(cards_of(DECK_MASK[g.options.deck]))
    kind = rng.randrange(7)
    if kind == Kind.LEAD:
        return mask_of(rng.sample(deck, rng.randint(1, 3))) << 3
    if kind == Kind.COVER:
        return Kind.COVER | rng.choice(deck) << 3 | rng.choice(deck) << 9
    if kind in (Kind.TAKE, Kind.PASS):
        return kind
    return kind | rng.choice(deck) << 3


def check_views(g: Game) -> None:
    for s in range(g.players):
        v = view(g, s)
        assert set(v.hand) == set(cards_of(g.hands[s]))
        others = mask_of(c for o in range(g.players) if o != s for c in cards_of(g.hands[o] & ~g.known[o]))
        exposed = mask_of(v.hand) | mask_of(c for info in v.seats for c in info.known)
        assert not exposed & others, "a seat's view shows another seat's hidden card"
    assert view(g).hand == ()


@given(tables(), st.integers(0, 2**32 - 1))
def test_random_games_keep_every_rule(table: tuple[Options, int], seed: int) -> None:
    options, players = table
    rng = random.Random(seed)
    g = Game.deal(options, players, rng=rng)
    start = dumps(g)
    log: list[tuple[int, Move | None]] = []
    for step in range(MAX_STEPS):
        check_invariants(g)
        if g.over:
            break
        # Random illegal moves are refused with a named reason and change nothing.
        for _ in range(2):
            seat = rng.randrange(players)
            move = random_move(rng, g)
            if move not in g.legal_moves(seat):
                key = g.state_key()
                reason = g.check(seat, move)
                assert reason is not None and reason is not Reason.NOT_ALLOWED, (seat, move, reason)
                assert g.state_key() == key
        if rng.random() < 0.08:
            g.timeout()
            log.append((-1, None))
        else:
            actors = g.actors()
            seat = rng.choice(actors)
            legal = g.legal_moves(seat)
            assert all(g.check(seat, m) is None for m in legal)
            move = rng.choice(legal)
            g.apply(seat, move)
            log.append((seat, move))
        if step % 7 == 0:
            check_views(g)
        assert loads(dumps(g)) == g
    else:
        raise AssertionError("the game did not end")
    result = g.result
    assert result is not None
    assert all(1 <= p <= players for p in result.places) and min(result.places) == 1
    assert all(result.places[s] == max(result.places) for s in result.losers)
    assert result.draw == (not result.losers)
    # Replaying the same moves from the same deal reaches the same state: the engine is deterministic.
    replay = loads(start)
    for actor, action in log:
        if action is None:
            replay.timeout()
        else:
            replay.apply(actor, action)
    assert replay == g


@given(tables())
def test_thousands_of_fast_playouts_end_with_every_card_accounted_for(table: tuple[Options, int]) -> None:
    options, players = table
    rng = random.Random(players)
    for _ in range(20):
        g = Game.deal(options, players, rng=rng)
        for _ in range(MAX_STEPS):
            if g.over:
                break
            acting = [(s, m) for s in range(players) if (m := g.legal_moves(s))]
            seat, legal = rng.choice(acting)
            g.push(seat, rng.choice(legal))
        else:
            raise AssertionError("the game did not end")
        check_invariants(g)
        result = g.result
        assert result is not None and len(result.places) == players
        played = Game.deal(options, players, rng=rng)
        assert random_playout(played, rng) is played.result is not None
        check_invariants(played)
        holders = [s for s in range(players) if g.hands[s]]
        assert set(holders) == set(result.losers) or (
            not holders and (result.draw or len(result.losers) == 1)
        )
