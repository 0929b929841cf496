"""The kinds of buttons the bot draws, by the prefix of their callback data (bot.callbacks encodes each), and
the messages each kind is drawn under: the handlers are matched by these prefixes, and a press of a kind its
message never carries is refused before any handler (bot.handlers.errors.Misplaced)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Screen = Literal["lobby", "table_in_play", "hand", "result", "board", "settings", "forget", "arena"]
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
    "c": _kind("table_in_play"),  # 🃏 My cards
    "L": _kind("lobby", "result"),  # the lobby's buttons; Rematch under a result
    "A": _kind("arena"),  # an arena's buttons (its 🃏 My cards among them)
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
