"""Durak rules engine: no I/O. See docs/rules.md for the rules it plays.

Its hot modules run compiled where the install could compile them (engine/build.py decides, before any of
them is imported), and as the pure-Python sources otherwise.
"""

from engine.build import BUILD  # before every other engine module: it decides which of them run compiled

# isort: split
from engine.cards import card_code, card_str, parse_card, parse_cards
from engine.events import Event, EventKind, IllegalMove, Reason
from engine.game import Applied, Game, Opening, Result
from engine.moves import Kind, Move, describe, move_str, parse_move
from engine.options import AttackCap, Options, OptionsError, RematchLead, ThrowIn, Variant

__all__ = [
    "BUILD",
    "Applied",
    "AttackCap",
    "Event",
    "EventKind",
    "Game",
    "IllegalMove",
    "Kind",
    "Move",
    "Opening",
    "Options",
    "OptionsError",
    "Reason",
    "RematchLead",
    "Result",
    "ThrowIn",
    "Variant",
    "card_code",
    "card_str",
    "describe",
    "move_str",
    "parse_card",
    "parse_cards",
    "parse_move",
]
