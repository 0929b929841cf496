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
class HandPress:
    table_id: int


@dataclass(frozen=True, slots=True)
class CardsPress:
    table_id: int


@dataclass(frozen=True, slots=True)
class ForgetPress:
    confirmed: bool


@dataclass(frozen=True, slots=True)
class BackPress:
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
class SettingsPress:
    """/language and /settings: ``scope`` "u" (your private language) or "c" (this group); ``what`` is
    "lang" (value: a language code) or an option name (cycled to its next value)."""

    scope: SettingsScope
    what: str
    value: str = ""


Press = (
    MovePress
    | PickPress
    | HandPress
    | ConcedePress
    | BackPress
    | CardsPress
    | ForgetPress
    | DiscardPress
    | LobbyPress
    | BoardPress
    | SettingsPress
)


Screen = Literal["lobby", "table", "hand", "result", "board", "settings", "forget"]
# The messages that carry buttons: the group's table message (a lobby, then the table in play), a hand (in
# private or in the group), a result, a leaderboard, a settings menu, /forgetme's confirmation.


@dataclass(frozen=True, slots=True)
class ButtonKind:
    under: frozenset[Screen]  # the messages it is drawn under
    rewrites: bool = False  # its answer is drawn in the message it was pressed under (a page, a menu)


def _kind(*under: Screen, rewrites: bool = False) -> ButtonKind:
    return ButtonKind(frozenset(under), rewrites)


# Every kind of button, by the prefix of its callback data. Handlers are matched by these prefixes
# (``pattern``), and a press of a kind the message it came from never carries is refused before any handler
# (``drawn_under``).
BUTTONS: dict[str, ButtonKind] = {
    "m": _kind("hand"),  # a move
    "k": _kind("hand"),  # a card picked to cover with
    "h": _kind("hand"),  # back to the hand from that pick
    "q": _kind("hand"),  # concede, and its confirmation
    "d": _kind("hand"),  # the discard pile
    "b": _kind("hand"),  # "I'm back"
    "c": _kind("table"),  # 🃏 My cards
    "L": _kind("lobby", "result"),  # the lobby's buttons; Rematch under a result
    "T": _kind("board", rewrites=True),  # a leaderboard page
    "S": _kind("settings", rewrites=True),  # a language, a group's option
    "F": _kind("forget", rewrites=True),  # /forgetme's answer
}


def pattern(*prefixes: str) -> str:
    """The handler pattern for buttons of these kinds."""
    assert all(p in BUTTONS for p in prefixes), prefixes
    return "^(" + "|".join(prefixes) + "):"


def drawn_under(data: str, shown: list[str]) -> bool:
    """Whether a press with ``data`` can have come from a message that shows buttons ``shown``: some kind of
    message carries both. A client can send any data under any message; one the message could never carry
    (a leaderboard page under a lobby, a language under the table) is forged, or the message changed since.
    A message that shows no buttons (any more) takes none that would redraw it, and the rest as always: a
    second Rematch under a result is told where the new table is."""
    kind = BUTTONS.get(data.split(":", 1)[0])
    if kind is None:
        return False
    if not shown:
        return not kind.rewrites
    screens = kind.under
    for other in shown:
        found = BUTTONS.get(other.split(":", 1)[0])
        screens = screens & found.under if found else frozenset()
    return bool(screens)


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
    elif isinstance(press, HandPress):
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
            return BackPress(_number(parts[1]))
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
        if parts[0] == "h" and len(parts) == 2:
            return HandPress(_number(parts[1]))
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
