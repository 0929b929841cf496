"""Bots' moves players reported as bad ones (/badmove), as a regression suite: each reported position, the
move the bot played there, and what each level plays there now (docs/ai.md, "Reported moves").

    .venv/bin/python bench/reports.py --database durak.sqlite3 --export reported.json   # the reports, as a suite
    .venv/bin/python bench/reports.py --suite reported.json --levels easy normal hard     # each level on it

A suite is a JSON list of {"game", "move_number", "seat", "position", "reported", "level", "note"}: the
position is the engine's snapshot of the game just before the move. For every position and level it prints
the move the level plays now (as a compact move string), and whether it is the reported one again; a fix to
a level is checked against every report this way. Each decision is a fresh player's (no memory of the game).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.ai.levels import decide
from engine.moves import move_str
from engine.options import BotLevel
from engine.snapshot import loads
from engine.views import view
from storage import Storage


async def export(database: str) -> list[dict[str, Any]]:
    """Every reported move of a bot's database, once each, as suite entries."""
    storage = await Storage.open(database)
    try:
        reports = await storage.reports.all()
    finally:
        await storage.close()
    return [
        {
            "game": r.game_id,
            "move_number": r.seq,
            "seat": r.seat,
            "position": json.loads(r.position),
            "reported": r.move,
            "level": r.level,
            "note": r.note,
        }
        for r in reports
    ]


def replay(suite: list[dict[str, Any]], levels: list[BotLevel], budget_scale: float) -> list[dict[str, Any]]:
    """What each level plays now at each reported position: {entry, level, move, again} each."""
    found = []
    for entry in suite:
        game = loads(json.dumps(entry["position"]))
        seen = view(game, entry["seat"])
        for level in levels:
            move = move_str(decide(seen, level, budget_scale))
            found.append(
                {"entry": entry, "level": level.value, "move": move, "again": move == entry["reported"]}
            )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database", help="a bot's SQLite file or PostgreSQL URL, to --export its reports")
    parser.add_argument("--export", type=Path, help="write the database's reports here as a suite")
    parser.add_argument("--suite", type=Path, help="a suite to play every level on")
    parser.add_argument(
        "--levels", nargs="+", default=["easy", "normal", "hard"], choices=[x.value for x in BotLevel]
    )
    parser.add_argument("--budget-scale", type=float, default=1.0)
    args = parser.parse_args()
    if args.export is not None:
        if not args.database:
            parser.error("--export needs --database")
        suite = asyncio.run(export(args.database))
        args.export.write_text(json.dumps(suite, indent=1) + "\n", encoding="utf-8")
        print(f"{len(suite)} reported moves written to {args.export}")
    if args.suite is not None:
        suite = json.loads(args.suite.read_text(encoding="utf-8"))
        results = replay(suite, [BotLevel(x) for x in args.levels], args.budget_scale)
        for r in results:
            e = r["entry"]
            mark = "AGAIN" if r["again"] else "other"
            print(
                f"game {e['game']} move {e['move_number']} ({e['level']} played {e['reported']}): {r['level']} {r['move']} {mark}"
            )
        again = sum(r["again"] for r in results)
        print(f"{len(suite)} positions, {len(results)} decisions: {again} play the reported move again")


if __name__ == "__main__":
    main()
