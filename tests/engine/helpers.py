"""Build exact positions and make moves by their strings, so each scenario reads like a deal."""

from __future__ import annotations

from typing import Any

import pytest

from engine import Applied, Game, IllegalMove, Options, Reason, parse_cards, parse_move
from engine.cards import SUIT_CODES, parse_card
from engine.snapshot import dumps


def cards(text: str) -> list[int]:
    return parse_cards(text)


def card(text: str) -> int:
    return parse_card(text)


def position(
    hands: list[str],
    talon: str = "",
    *,
    trump: str | None = None,
    trump_card: str | None = None,
    lead: int | None = 0,
    bout: int = 1,
    **options: Any,
) -> Game:
    """A game at the start of a bout. ``talon`` is in draw order, its last card face up. ``bout=1`` keeps
    the first-bout limit out of scenarios that are not about it."""
    return Game.setup(
        Options(**options),
        [cards(h) for h in hands],
        cards(talon),
        trump_card=card(trump_card) if trump_card else None,
        trump_suit=SUIT_CODES.index(trump) if trump else None,
        lead=lead,
        bout=bout,
    )


def do(game: Game, seat: int, *moves: str) -> Applied:
    applied = Applied(game.version, ())
    for text in moves:
        applied = game.apply(seat, parse_move(text))
    return applied


def refused(game: Game, seat: int, move: str) -> Reason:
    """The move is refused, and refusing it changes nothing."""
    before = dumps(game)
    with pytest.raises(IllegalMove) as info:
        game.apply(seat, parse_move(move))
    assert dumps(game) == before
    assert info.value.reason is not Reason.NOT_ALLOWED, "every refusal names its reason"
    return info.value.reason


def moves(game: Game, seat: int) -> set[str]:
    from engine import move_str

    return {move_str(m) for m in game.legal_moves(seat)}


def hand(game: Game, seat: int) -> set[int]:
    return set(game.hand(seat))
