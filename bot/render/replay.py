"""A finished game told move by move from its deal and its log, for /replay: bouts, leads, covers, takes,
transfers, and how many cards each player drew (never which), then how it ended."""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import Text
from bot.render.group import event_line, name_of
from bot.render.result import result_lines
from engine.actions import act, parse_action
from engine.events import EventKind
from engine.game import Game


def by_bot(game: Game, seat: int, action: str, bots: Sequence[bool]) -> bool:
    """Whether this action, about to be applied to ``game``, is a move a bot chose: at a seat a bot sat at
    from the start (``bots``), or that one held for its player (a timeout or a concession is no choice)."""
    return isinstance(parse_action(action), int) and (bots[seat] or game.is_auto(seat))


def bot_move(deal: Game, actions: Sequence[tuple[int, str]], bots: Sequence[bool], n: int) -> Game | None:
    """The game just before the ``n``-th action of its log (1 is the first), if a bot chose that move."""
    game = deal.copy()
    for i, (seat, action) in enumerate(actions, 1):
        if i == n:
            return game if by_bot(game, seat, action, bots) else None
        act(game, seat, action)
    return None


def replay_lines(
    deal: Game, actions: Sequence[tuple[int, str]], names: Sequence[str], t: Text, bots: Sequence[bool] = ()
) -> list[str]:
    """A whole game in words, move by move, from its deal and its log: bouts, leads, covers, takes,
    transfers and draws (how many cards, never which). A move a bot chose is numbered ([12]: its place in
    the log), for a player who thinks it was a bad one to report it (/badmove)."""
    game = deal.copy()
    bots = list(bots) or [False] * game.players
    lines = [t("replay.bout", n=1, lead=name_of(names, game.lead), defender=name_of(names, game.defender))]
    for i, (seat, action) in enumerate(actions, 1):
        mark = f"[{i}] " if by_bot(game, seat, action, bots) else ""
        for event in act(game, seat, action).events:
            if event.kind is EventKind.BOUT:
                lines.append(
                    t(
                        "replay.bout",
                        n=event.count + 1,
                        lead=name_of(names, event.seat),
                        defender=name_of(names, event.target),
                    )
                )
            elif event.kind is EventKind.DREW:
                lines.append(t.plural("replay.drew", event.count, name=name_of(names, event.seat)))
            elif (line := event_line(event, names, t)) is not None:
                lines.append(mark + line)
                mark = ""
    if game.result is not None:
        lines += ["", *result_lines(game.result, names, t)]
    return lines
