"""Actions: what a seat does to a game, as the table service applies it and the event log stores it, and
replaying a log onto the deal it started from.

An action is a move (an int of ``engine.moves``, stored as its string: ``l6s``, ``c7h8h``, ``x`` ...) or a
control word: the timer ran out, a bot took the seat over, the player came back, the player conceded.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from engine.game import Applied, Game
from engine.moves import Move, move_str, parse_move


class Control(StrEnum):
    TIMEOUT = "timeout"  # the timer ran out for every seat on the clock (seat is -1)
    TAKE_OVER = "takeover"  # a bot plays the seat from now on
    RECLAIM = "back"  # the player pressed "I'm back"
    CONCEDE = "concede"  # the player conceded the game (docs/rules.md §9)


TIMEOUT, TAKE_OVER, RECLAIM, CONCEDE = Control.TIMEOUT, Control.TAKE_OVER, Control.RECLAIM, Control.CONCEDE

Action = Move | Control


def action_str(action: Action) -> str:
    """The stored form of an action: the control word, or the move's string."""
    return action.value if isinstance(action, Control) else move_str(action)


def parse_action(text: str) -> Action:
    """The inverse of ``action_str``; ValueError for text that is neither."""
    try:
        return Control(text)
    except ValueError:
        return parse_move(text)


def act(game: Game, seat: int, action: Action | str) -> Applied:
    """Apply one action (or its stored string); raises IllegalMove or ValueError as the live call would."""
    if isinstance(action, str):
        action = parse_action(action)
    if action is Control.TIMEOUT:
        return game.timeout()
    if action is Control.TAKE_OVER:
        return game.take_over(seat)
    if action is Control.RECLAIM:
        return game.reclaim(seat)
    if action is Control.CONCEDE:
        return game.concede(seat)
    return game.apply(seat, action)


def replay(deal: Game, actions: Iterable[tuple[int, str]]) -> Game:
    """The game reached by applying stored ``actions`` (seat, action) to a copy of ``deal``."""
    game = deal.copy()
    for seat, action in actions:
        act(game, seat, action)
    return game
