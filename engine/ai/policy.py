"""The playout policy of search: a quick, sensible move for any seat of a game, from a few integer
operations on its hand (search plays thousands of games per decision with it).

It plays like a plain careful player: lead the cheapest plain rank, cover with the cheapest card that beats,
take rather than spend a high trump early, transfer with plain cards, throw in cheap plain cards, and now and
then a random legal move, so playouts do not all follow one line.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

from engine.cards import RANK_MASK, SUIT_MASK, lowest
from engine.game import Game, Result
from engine.moves import (
    CARDS_SHIFT,
    COVER_ON,
    COVER_SHIFT,
    KIND_MASK,
    PASS,
    SHOW_TRUMP_KIND,
    TAKE,
    THROW_IN_KIND,
    TRANSFER_KIND,
    Move,
    lead_of,
)

TRUMP_PREMIUM: Final = 13  # a trump outranks every plain card
EXPLORE: Final = 0.08  # share of random moves in playouts
# A (seat, move) pair packed into one int, ``seat | move << SEAT_BITS`` (seats are below 8): the search tree's
# edge keys and the move averages' keys.
SEAT_BITS: Final = 3
SEAT_MASK: Final = (1 << SEAT_BITS) - 1
_HIGH_TRUMP: Final = 10  # queens and up: covering with them early costs more than taking
_JACK: Final = 9
_UNIT: Final = 1024  # the move averages count rewards in these parts: an endgame's value is a fraction


def cost(card: int, trump: int) -> int:
    """How much a card is worth keeping: its rank, and trumps above every plain card."""
    return (card >> 2) + (TRUMP_PREMIUM if card & 3 == trump else 0)


def rewards(result: Result, players: int) -> list[float]:
    """Per seat: 1 for escaping, 0 for losing (in team play, the whole losing team), ½ in a draw."""
    return [result.reward(s) for s in range(players)]


def policy_move(game: Game, seat: int, moves: list[Move]) -> Move:
    """The policy's choice for ``seat`` among its legal ``moves`` (not empty)."""
    if len(moves) == 1:
        return moves[0]
    hand, trump = game.hands[seat], game.trump
    trumps = SUIT_MASK[trump]
    plain = hand & ~trumps
    if not game.attack:  # a lead: the cheapest rank, every plain card of it that the bout can take
        low = lowest(plain or hand)
        group = (plain or hand) & RANK_MASK[low >> 2]
        move = lead_of(group)
        return move if move in moves else lead_of(1 << low)
    if seat == game.defender:
        return _defence(game, hand, trumps, moves)
    throws = plain & game.ranks
    if throws:
        low = lowest(throws)
        if low >> 2 <= _JACK or not game.talon:
            move = THROW_IN_KIND | low << CARDS_SHIFT
            if move in moves:
                return move
    if not game.talon and not plain and hand & game.ranks:
        move = THROW_IN_KIND | lowest(hand & game.ranks) << CARDS_SHIFT
        if move in moves:
            return move
    return PASS if PASS in moves else moves[0]


def _defence(game: Game, hand: int, trumps: int, moves: list[Move]) -> Move:
    for m in moves:
        kind = m & KIND_MASK
        if kind == SHOW_TRUMP_KIND or (kind == TRANSFER_KIND and not (1 << (m >> CARDS_SHIFT)) & trumps):
            return m  # pass the attack on: it costs nothing or a plain card
    beaters, cover = game.beaters, game.cover
    for i, a in enumerate(game.attack):
        if cover[i] < 0:
            options = hand & beaters[a]
            if not options:
                return TAKE
            cheap = options & ~trumps
            card = lowest(cheap or options)
            if not cheap and card >> 2 >= _HIGH_TRUMP and len(game.talon) > 4:
                return TAKE
            return COVER_ON[a] | card << COVER_SHIFT
    return TAKE


class Averages:
    """Move averages over one decision's iterations (MAST: Finnsson & Björnsson 2008; in information-set
    search, Powley, Whitehouse & Cowling 2014): what every (seat, move) pair played anywhere in an iteration,
    in the tree or the playout, scored for that seat on average. A playout's exploratory moves are then drawn
    by a Gibbs distribution over them (``temperature``) instead of uniformly: unlike the policy, which plays
    the same line in a world however long the search runs, they learn, so the playouts get better as the
    search goes on. A move not yet played counts as a sure win (tried before it is judged)."""

    __slots__ = ("played", "scores", "temperature")

    def __init__(self, temperature: float) -> None:
        self.temperature = temperature
        # Per key, packed in one int for speed: the times played, and above bit 32 the rewards won in _UNITs.
        self.scores: dict[int, int] = {}
        self.played: list[int] = []  # this iteration's (seat, move) keys, see SEAT_BITS

    def note(self, seat: int, move: Move) -> None:
        self.played.append(seat | move << SEAT_BITS)

    def credit(self, rewards: list[float]) -> None:
        """The iteration is over: each pair it played scores the reward of its seat."""
        scores = self.scores
        won = [1 + (round(r * _UNIT) << 32) for r in rewards]
        for key in self.played:
            scores[key] = scores.get(key, 0) + won[key & SEAT_MASK]
        self.played.clear()

    def choose(self, seat: int, moves: list[Move], random: Callable[[], float]) -> Move:
        scores, t = self.scores, _UNIT * self.temperature
        weights: list[float] = []
        total = 0.0
        for m in moves:
            v = scores.get(seat | m << SEAT_BITS, 0)
            n = v & 0xFFFFFFFF
            w = math.exp(((v >> 32) / n - _UNIT) / t) if n else 1.0
            weights.append(w)
            total += w
        x = random() * total
        for i, w in enumerate(weights):
            x -= w
            if x < 0.0:
                return moves[i]
        return moves[-1]


def playout(
    game: Game, random: Callable[[], float], explore: float = EXPLORE, averages: Averages | None = None
) -> Result:
    """Play ``game`` to the end with the policy (mutates it), a share ``explore`` of the moves at random
    (drawn by the ``averages`` if given, which note every move played); the seat on the clock is drawn at
    random when several throwers may act."""
    result = play_on(game, random, explore, averages, False)
    assert result is not None
    return result


def endgame_begins(game: Game) -> bool:
    """Heads-up, the talon empty and a bout about to be led: from here every card's place is known, and
    engine.ai.value judges the game."""
    return game.players == 2 and not game.talon and not game.attack


def play_on(
    game: Game, random: Callable[[], float], explore: float, averages: Averages | None, endgame: bool
) -> Result | None:
    """``playout``, which with ``endgame`` stops (None) where ``endgame_begins``."""
    while game.result is None:  # method calls, not bound-method locals: compiled, those are native calls
        if endgame and endgame_begins(game):
            return None
        seat, moves = game.turn(random)
        if random() < explore:
            if averages is None:
                move = moves[int(random() * len(moves))]
            else:
                move = averages.choose(seat, moves, random)
        else:
            move = policy_move(game, seat, moves)
        if averages is not None:
            averages.note(seat, move)
        game.push(seat, move)
    return game.result
