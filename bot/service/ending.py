"""How a game ends at a table: why a bot plays each seat it plays, and the result recorded with the ratings it
changed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.service.contracts import Env
from engine import Game
from engine.actions import TIMEOUT, Action
from engine.events import Event, EventKind
from storage.records import Ended, GameRow, PlayerResult, Seat, TableRow
from storage.results import result_from_engine

Ratings = dict[int, tuple[float, float]]  # seat -> (before, after), once a game is rated


def handed_after(
    handed: dict[int, Ended], seats: Sequence[Seat], kicked: set[int], events: Sequence[Event], action: Action
) -> dict[int, Ended]:
    """Why a bot plays each seat it plays after these events: its player's timer ran out, they left, or the
    host or an admin removed them ("I'm back" gives the seat back)."""
    changes = [e for e in events if e.kind in (EventKind.TAKEN_OVER, EventKind.RECLAIMED)]
    if not changes:
        return handed  # nearly every move: nothing to copy
    handed = dict(handed)
    for event in changes:
        if event.kind is EventKind.TAKEN_OVER:
            gone: Ended = "kicked" if seats[event.seat].user_id in kicked else "left"
            handed[event.seat] = "timed_out" if action == TIMEOUT else gone
        elif event.kind is EventKind.RECLAIMED:
            handed.pop(event.seat, None)
    return handed


async def record_result(
    env: Env, row: TableRow, game_row: GameRow, game: Game, rated: bool, handed: dict[int, Ended]
) -> tuple[GameRow, Ratings]:
    """Store the result of a game that just ended (inside the transaction of its last move): the game's
    record as finished, and the ratings it changed."""
    assert game.result is not None
    # A bot plays the seats in ``handed`` at the end; one it took over before a restart is counted as left
    # (why is not kept across restarts). A player who conceded lost the game as it stood: played, not walked
    # away from.
    ended = {
        s: handed.get(s, "left") for s in range(game.players) if game.is_auto(s) and s not in game.conceded
    }
    record = result_from_engine(
        game_row.id,
        row.chat_id,
        row.seats,
        game.result,
        row.options,
        rated=rated,
        started_at=game_row.started_at,
        finished_at=env.clock(),
        ended=ended,
    )
    stored = await env.storage.results.record(record, teams=row.options.teams)
    return game_row.model_copy(update={"finished_at": record.finished_at}), ratings_of(stored.players)


def ratings_of(players: Iterable[PlayerResult]) -> Ratings:
    return {
        p.seat: (p.rating_before, p.rating_after)
        for p in players
        if p.rating_before is not None and p.rating_after is not None
    }
