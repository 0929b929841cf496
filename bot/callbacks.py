"""Callback data of inline buttons: compact, at most 64 bytes, and carrying the table's state version the
keyboard was drawn at (a move still counts if it is legal now; the version tells an out-of-date keyboard to
be drawn anew, and a card picked for the two-step cover to be asked again).

``S:<u|c>:<what>[:<value>]`` a settings button · ``T:<c|g>:<game type>:<page>`` a leaderboard page · ``L:<table>:<action>[:<option>]`` a lobby button (join, leave, add bot, options, start, cycle an option) ·
``m:<table>:<version>:<move>`` a move · ``k:<table>:<version>:<card>`` a card picked to cover with, when it
could cover several attack cards (the second step asks which) · ``h:<table>`` show the hand again (leaves
that second step) · ``b:<table>`` "I'm back" · ``c:<table>`` "🃏 My cards" under the table: the hand in the
group, seen only by its player · ``F:<yes|no>`` /forgetme's confirmation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast, get_args

from engine.cards import card_code, parse_card
from engine.moves import Move, move_str, parse_move
from engine.options import GameType
from storage.seasons import is_season

MAX_BYTES = 64
MAX_DIGITS = 15  # ids, versions and pages from outside stay far below SQLite's 2**63


@dataclass(frozen=True, slots=True)
class MovePress:
    table_id: int
    version: int
    move: Move


@dataclass(frozen=True, slots=True)
class PickPress:
    table_id: int
    version: int
    card: int


@dataclass(frozen=True, slots=True)
class UnpickPress:
    """Back to the hand from a card picked to cover with."""

    table_id: int


@dataclass(frozen=True, slots=True)
class CardsPress:
    table_id: int


@dataclass(frozen=True, slots=True)
class ForgetPress:
    confirmed: bool


@dataclass(frozen=True, slots=True)
class ReclaimPress:
    """ "I'm back": the player takes their seat back from the bot (engine.actions.RECLAIM)."""

    table_id: int


ConcedeStep = Literal["ask", "yes", "no"]  # the button, then the confirmation's two answers
CONCEDE_STEPS: tuple[ConcedeStep, ...] = get_args(ConcedeStep)


@dataclass(frozen=True, slots=True)
class ConcedePress:
    """ "🏳 Concede" under a hand, and its confirmation (docs/rules.md §9)."""

    table_id: int
    step: ConcedeStep


@dataclass(frozen=True, slots=True)
class DiscardPress:
    """Open the list of discarded cards (docs/rules.md §4.7)."""

    table_id: int


LobbyAction = Literal["join", "leave", "bot", "options", "done", "start", "set", "rematch"]
BoardScope = Literal["c", "g"]  # the leaderboard of the chat the message is in, or the global one
SettingsScope = Literal["u", "c"]  # your private language, or this group's settings
LOBBY_ACTIONS: tuple[LobbyAction, ...] = get_args(LobbyAction)
ArenaAction = Literal["join", "leave", "berserk", "back", "cards"]
ARENA_ACTIONS: tuple[ArenaAction, ...] = get_args(ArenaAction)
GAME_TYPES: tuple[GameType, ...] = get_args(GameType)


@dataclass(frozen=True, slots=True)
class BoardPress:
    """A leaderboard page: ``scope`` "c" for the chat the message is in, "g" for the global board."""

    scope: BoardScope
    game_type: GameType
    page: int
    season: str = ""  # a season's board ("2026-12", "2026-Q4"); "" the all-time board


@dataclass(frozen=True, slots=True)
class LobbyPress:
    table_id: int
    action: LobbyAction
    option: str = ""  # with "set": the option to change


@dataclass(frozen=True, slots=True)
class ArenaPress:
    """A button of an arena's message (docs/groups.md)."""

    arena_id: int
    action: ArenaAction


@dataclass(frozen=True, slots=True)
class SettingsPress:
    """/language and /settings: ``scope`` "u" (your private language) or "c" (this group); ``what`` is
    "lang" (value: a language code) or an option name (cycled to its next value)."""

    scope: SettingsScope
    what: str
    value: str = ""


Press = (
    MovePress
    | PickPress
    | UnpickPress
    | ConcedePress
    | ReclaimPress
    | CardsPress
    | ForgetPress
    | DiscardPress
    | LobbyPress
    | ArenaPress
    | BoardPress
    | SettingsPress
)


def encode(press: Press) -> str:
    if isinstance(press, MovePress):
        data = f"m:{press.table_id}:{press.version}:{move_str(press.move)}"
    elif isinstance(press, PickPress):
        data = f"k:{press.table_id}:{press.version}:{card_code(press.card)}"
    elif isinstance(press, SettingsPress):
        data = f"S:{press.scope}:{press.what}" + (f":{press.value}" if press.value else "")
    elif isinstance(press, BoardPress):
        data = f"T:{press.scope}:{press.game_type}:{press.page}" + (
            f":{press.season}" if press.season else ""
        )
    elif isinstance(press, LobbyPress):
        data = f"L:{press.table_id}:{press.action}" + (f":{press.option}" if press.option else "")
    elif isinstance(press, ArenaPress):
        data = f"A:{press.arena_id}:{press.action}"
    elif isinstance(press, UnpickPress):
        data = f"h:{press.table_id}"
    elif isinstance(press, ConcedePress):
        data = f"q:{press.table_id}:{press.step}"
    elif isinstance(press, DiscardPress):
        data = f"d:{press.table_id}"
    elif isinstance(press, CardsPress):
        data = f"c:{press.table_id}"
    elif isinstance(press, ForgetPress):
        data = f"F:{'yes' if press.confirmed else 'no'}"
    else:
        data = f"b:{press.table_id}"
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"callback data over {MAX_BYTES} bytes: {data!r}")
    return data


def decode(data: str | None) -> Press | None:
    """The press, or None for data that is not ours or is malformed (never an exception)."""
    if not data or len(data.encode()) > MAX_BYTES:
        return None
    parts = data.split(":")
    try:
        if parts[0] == "b" and len(parts) == 2:
            return ReclaimPress(_number(parts[1]))
        if parts[0] == "L" and len(parts) in (3, 4) and parts[2] in LOBBY_ACTIONS:
            option = parts[3] if len(parts) == 4 else ""
            if (parts[2] == "set") != bool(option) or (not option.replace("_", "").isalnum() and option):
                return None
            return LobbyPress(_number(parts[1]), parts[2], option)
        if (
            parts[0] == "S"
            and len(parts) in (3, 4)
            and parts[1] in ("u", "c")
            and parts[2].replace("_", "").isalpha()
        ):
            scope = cast(SettingsScope, parts[1])
            return SettingsPress(scope, parts[2], parts[3] if len(parts) == 4 else "")
        if parts[0] == "T" and len(parts) in (4, 5) and parts[1] in ("c", "g") and parts[2] in GAME_TYPES:
            season = parts[4] if len(parts) == 5 else ""
            if season and not (parts[1] == "c" and is_season(season)):
                return None
            return BoardPress(cast(BoardScope, parts[1]), parts[2], _number(parts[3]), season)
        if parts[0] == "A" and len(parts) == 3 and parts[2] in ARENA_ACTIONS:
            return ArenaPress(_number(parts[1]), parts[2])
        if parts[0] == "h" and len(parts) == 2:
            return UnpickPress(_number(parts[1]))
        if parts[0] == "q" and len(parts) == 3 and parts[2] in CONCEDE_STEPS:
            return ConcedePress(_number(parts[1]), parts[2])
        if parts[0] == "d" and len(parts) == 2:
            return DiscardPress(_number(parts[1]))
        if parts[0] == "c" and len(parts) == 2:
            return CardsPress(_number(parts[1]))
        if parts[0] == "F" and len(parts) == 2 and parts[1] in ("yes", "no"):
            return ForgetPress(parts[1] == "yes")
        if parts[0] in ("m", "k") and len(parts) == 4:
            table_id, version = _number(parts[1]), _number(parts[2])
            if parts[0] == "m":
                return MovePress(table_id, version, parse_move(parts[3]))
            return PickPress(table_id, version, parse_card(parts[3]))
    except ValueError:
        return None
    return None


def number(text: str) -> int | None:
    """A non-negative whole number written in ASCII digits, small enough for the database; None otherwise.
    Every integer that comes from outside (callback data, command arguments) is read through here."""
    if not (0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit()):
        return None
    return int(text)


def _number(text: str) -> int:
    found = number(text)
    if found is None:
        raise ValueError(text)
    return found
