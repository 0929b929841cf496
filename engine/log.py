"""Logged actions: what the event log stores, and replaying a log onto the deal it started from.

An action is a move string (``l6s``, ``c7h8h``, ``x`` ...) made by a seat, or one of the words below.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.game import Applied, Game
from engine.moves import parse_move

TIMEOUT = "timeout"  # the timer ran out for every seat on the clock (seat is -1)
TAKE_OVER = "takeover"  # a bot plays the seat from now on
RECLAIM = "back"  # the player pressed "I'm back"


def act(game: Game, seat: int, action: str) -> Applied:
    """Apply one logged action; raises IllegalMove or ValueError exactly as the live call would."""
    if action == TIMEOUT:
        return game.timeout()
    if action == TAKE_OVER:
        return game.take_over(seat)
    if action == RECLAIM:
        return game.reclaim(seat)
    return game.apply(seat, parse_move(action))


def replay(deal: Game, actions: Iterable[tuple[int, str]]) -> Game:
    """The game reached by applying ``actions`` (seat, action) to a copy of ``deal``."""
    game = deal.copy()
    for seat, action in actions:
        act(game, seat, action)
    return game
