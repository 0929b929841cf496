"""Bots' moves that players reported as bad ones (/badmove): each with the position before it, the move and
the level that played it; bench/reports.py turns them into a suite every level is checked against."""

from __future__ import annotations

import time
from dataclasses import dataclass

from storage.db import Database


@dataclass(frozen=True, slots=True)
class MoveReport:
    game_id: int
    seq: int  # the move's place in the game's log (1: the first)
    seat: int
    position: str  # the game just before the move (engine snapshot JSON)
    move: str  # the move, as the log writes it
    level: str
    note: str


class Reports:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def record(self, report: MoveReport, reporter_id: int) -> bool:
        """Store a report; False if this player reported this move before."""
        added = await self.db.execute(
            """INSERT INTO move_reports (game_id, seq, seat, position, move, level, reporter_id, note, created_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING""",
            (report.game_id, report.seq, report.seat, report.position, report.move, report.level, reporter_id,
             report.note or None, time.time()),
        )  # fmt: skip
        return bool(added)

    async def all(self) -> list[MoveReport]:
        """Every reported move, once each (several players may report the same), oldest first."""
        rows = await self.db.fetch_all(
            """SELECT game_id, seq, MIN(seat) AS seat, MIN(position) AS position, MIN(move) AS move,
                   MIN(level) AS level, MIN(COALESCE(note, '')) AS note FROM move_reports
               GROUP BY game_id, seq ORDER BY MIN(id)"""
        )
        return [
            MoveReport(r["game_id"], r["seq"], r["seat"], r["position"], r["move"], r["level"], r["note"])
            for r in rows
        ]
