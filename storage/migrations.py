"""The schema, as numbered migrations, for each backend. Each runs in one transaction with the version bump,
so a database is always at exactly one version; a database newer than this code is refused rather than
misread. Version N means the same tables and columns in both dialects: only the types differ (PostgreSQL
needs 64-bit ids and timestamps spelled out), and how the version is kept (SQLite's ``user_version``, a
one-row table in PostgreSQL).
"""

from __future__ import annotations

import re
import sqlite3
from typing import TYPE_CHECKING, Any

import aiosqlite
from psycopg.rows import tuple_row

if TYPE_CHECKING:
    import psycopg

# Append only: a released migration never changes. Index i holds the step from version i to i + 1.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE users (
        id INTEGER PRIMARY KEY,                  -- Telegram user id
        first_name TEXT NOT NULL,
        last_name TEXT,
        username TEXT,
        telegram_language TEXT,                  -- Telegram's language_code
        language TEXT,                           -- chosen by the user; NULL: follow Telegram's
        started INTEGER NOT NULL DEFAULT 0,      -- pressed Start in private: the bot may message them
        blocked INTEGER NOT NULL DEFAULT 0,      -- blocked the bot: messages fail until they start it again
        updated_at REAL NOT NULL
    );
    CREATE TABLE chats (
        id INTEGER PRIMARY KEY,                  -- Telegram chat id
        type TEXT NOT NULL,
        title TEXT,
        language TEXT,
        is_forum INTEGER NOT NULL DEFAULT 0,
        default_options TEXT CHECK (default_options IS NULL OR json_valid(default_options)),
        updated_at REAL NOT NULL
    );
    CREATE TABLE tables (
        id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL REFERENCES chats(id) ON UPDATE CASCADE,
        thread_id INTEGER NOT NULL DEFAULT 0,    -- forum topic; 0 outside topics
        creator_id INTEGER NOT NULL REFERENCES users(id),
        status TEXT NOT NULL CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled', 'broken')),
        options TEXT NOT NULL CHECK (json_valid(options)),
        message_id INTEGER,                      -- the lobby, then table, message in the group
        deadline REAL,                           -- when the current move timer runs out (unix time)
        broken_reason TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE UNIQUE INDEX tables_one_live_per_thread ON tables (chat_id, thread_id)
        WHERE status IN ('lobby', 'playing');
    CREATE INDEX tables_live ON tables (status) WHERE status IN ('lobby', 'playing');
    CREATE TABLE seats (
        table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        user_id INTEGER REFERENCES users(id),    -- NULL: a bot seated from the start
        bot_level TEXT,
        hand_message_id INTEGER,
        PRIMARY KEY (table_id, seat),
        CHECK ((user_id IS NULL) != (bot_level IS NULL))
    );
    CREATE UNIQUE INDEX seats_one_per_user ON seats (table_id, user_id) WHERE user_id IS NOT NULL;
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        table_id INTEGER NOT NULL REFERENCES tables(id),
        deal TEXT NOT NULL CHECK (json_valid(deal)),          -- the snapshot at the deal: replays start here
        snapshot TEXT NOT NULL CHECK (json_valid(snapshot)),  -- the snapshot after the last logged action
        version INTEGER NOT NULL,
        seq INTEGER NOT NULL DEFAULT 0,                       -- the last event's sequence number
        rated INTEGER NOT NULL,
        started_at REAL NOT NULL,
        finished_at REAL
    );
    CREATE INDEX games_table ON games (table_id);
    CREATE TABLE events (
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        action TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE results (
        game_id INTEGER PRIMARY KEY REFERENCES games(id),
        chat_id INTEGER NOT NULL REFERENCES chats(id) ON UPDATE CASCADE,
        game_type TEXT NOT NULL,
        draw INTEGER NOT NULL,
        pogony INTEGER NOT NULL,
        durak_seat INTEGER,
        losing_team INTEGER,
        rated INTEGER NOT NULL,
        duration REAL NOT NULL,
        finished_at REAL NOT NULL
    );
    CREATE TABLE result_players (
        game_id INTEGER NOT NULL REFERENCES results(game_id),
        seat INTEGER NOT NULL,
        user_id INTEGER REFERENCES users(id),    -- NULL: a bot seat
        place INTEGER NOT NULL,
        won INTEGER NOT NULL,
        durak INTEGER NOT NULL,
        drawn INTEGER NOT NULL,
        pogony INTEGER NOT NULL,
        rating_before REAL,                      -- the chat leaderboard's ordinal, rated games only
        rating_after REAL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX result_players_user ON result_players (user_id);
    CREATE TABLE ratings (
        user_id INTEGER NOT NULL REFERENCES users(id),
        chat_id INTEGER NOT NULL,                -- 0: the global leaderboard
        game_type TEXT NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        ordinal REAL NOT NULL,
        games INTEGER NOT NULL,
        PRIMARY KEY (user_id, chat_id, game_type)
    );
    CREATE INDEX ratings_board ON ratings (chat_id, game_type, ordinal DESC, games, user_id);
    """,
    # 2: fair play. The deck order and the salt whose SHA-256 the table shows before play (NULL for games
    # dealt before this version).
    """
    ALTER TABLE games ADD COLUMN deck TEXT;
    ALTER TABLE games ADD COLUMN salt TEXT;
    """,
    # 3: integrity. A result is delivered even if the process died right after the final move committed: the
    # result message's id is stored once it is sent (0 for games finished before this version, whose results
    # were sent as they ended). A table's deep link carries an unguessable token, never the table's id.
    """
    ALTER TABLE games ADD COLUMN result_message_id INTEGER;
    UPDATE games SET result_message_id = 0 WHERE finished_at IS NOT NULL;
    CREATE INDEX games_undelivered ON games (table_id) WHERE finished_at IS NOT NULL AND result_message_id IS NULL;
    ALTER TABLE tables ADD COLUMN join_token TEXT;
    UPDATE tables SET join_token = lower(hex(randomblob(12)));
    CREATE UNIQUE INDEX tables_join_token ON tables (join_token);
    """,
    # 4: several processes on one database (PostgreSQL). Each chat with live tables is owned by one process
    # under a lease that process renews; updates another process receives for that chat are forwarded to
    # the owner through ``forwarded``. (SQLite, one process, keeps both empty.)
    """
    CREATE TABLE chat_owners (
        chat_id INTEGER PRIMARY KEY,
        owner TEXT NOT NULL,                     -- the process: host, pid and a random part
        lease_until REAL NOT NULL                -- the lease runs out then unless renewed (unix time)
    );
    CREATE INDEX chat_owners_owner ON chat_owners (owner);
    CREATE TABLE forwarded (
        id INTEGER PRIMARY KEY,
        owner TEXT NOT NULL,
        chat_id INTEGER NOT NULL,                -- the chat whose owner must handle it
        payload TEXT NOT NULL,                   -- the Telegram update, as JSON
        at REAL NOT NULL
    );
    CREATE INDEX forwarded_owner ON forwarded (owner, id);
    """,
    # 5: the processes alive, so that they share Telegram's overall budget of one bot token between them.
    """
    CREATE TABLE processes (
        name TEXT PRIMARY KEY,
        alive_until REAL NOT NULL
    );
    """,
    # 6: cards in the group. Where a player wants their hand (NULL: in private if they started the bot,
    # else in the group), and the in-group hand a seat was last sent (an ephemeral message's id: the bot edits
    # it, and deletes it when it sends a fresh one).
    """
    ALTER TABLE users ADD COLUMN cards TEXT CHECK (cards IS NULL OR cards IN ('private', 'group', 'both'));
    ALTER TABLE seats ADD COLUMN group_hand_id INTEGER;
    """,
    # 7: a group's sending budget outlives the process that spent it: a restarted process (or the one that
    # takes the group over) reads what was sent into the group in the last minute, and a 429's wait.
    """
    CREATE TABLE chat_pace (
        chat_id INTEGER PRIMARY KEY,
        sent TEXT NOT NULL CHECK (json_valid(sent)),   -- unix times of the group's last sends, oldest first
        blocked_until REAL NOT NULL DEFAULT 0           -- a 429 asked to wait until then (unix time)
    );
    """,
    # 8: what a busy group's admins decide: who may open tables, and whether a forum keeps one table in the
    # whole group rather than one per topic.
    """
    ALTER TABLE chats ADD COLUMN opens TEXT NOT NULL DEFAULT 'everyone' CHECK (opens IN ('everyone', 'admins'));
    ALTER TABLE chats ADD COLUMN tables_per TEXT NOT NULL DEFAULT 'topic' CHECK (tables_per IN ('topic', 'group'));
    """,
    # 9: how each player's game ended for them: played to the end, or handed to a bot because they left, missed
    # their moves, or were removed by the host or an admin (/kick). Reliability in /stats and the lobby.
    """
    ALTER TABLE result_players ADD COLUMN ended TEXT NOT NULL DEFAULT 'played'
        CHECK (ended IN ('played', 'left', 'timed_out', 'kicked'));
    """,
    # 10: seasons: a group's board that starts afresh every month (the default) or quarter, or none; and the
    # last season whose podium the group was shown (told once, whichever process gets there first).
    """
    ALTER TABLE chats ADD COLUMN seasons TEXT NOT NULL DEFAULT 'monthly'
        CHECK (seasons IN ('monthly', 'quarterly', 'off'));
    ALTER TABLE chats ADD COLUMN season_told TEXT;
    """,
    # 11: a tidy chat: the group's commands that led to a table (and the bot's answers to them), deleted when
    # its game ends where the group keeps its chat tidy (the default) and the bot may delete messages.
    """
    ALTER TABLE chats ADD COLUMN tidy TEXT NOT NULL DEFAULT 'on' CHECK (tidy IN ('on', 'off'));
    CREATE TABLE tidy_messages (
        table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        chat_id INTEGER NOT NULL,                -- the chat it was written in (a group that moved keeps its own)
        message_id INTEGER NOT NULL,
        PRIMARY KEY (table_id, chat_id, message_id)
    ) WITHOUT ROWID;
    """,
    # 12: where another process reaches this one's web table (its own address, not the public one): a page
    # that opened its socket at any process is relayed to the process that plays its table.
    """
    ALTER TABLE processes ADD COLUMN web TEXT;
    """,
    # 13: the health check's write (bot.watch): a database that answers reads but takes no write (locked by
    # another program, a full disk, read-only) is not well.
    """
    CREATE TABLE health (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        checked_at REAL NOT NULL
    );
    """,
    # 14: a group's arena (docs/groups.md, "Game night"): a tournament in the chat for a set time, whose
    # players are paired into tables of their own as they come free. Its tables leave the one-open-table rule
    # to it; a seat knows whether its player went berserk (half the move timer, a point more for a win).
    """
    CREATE TABLE arenas (
        id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL REFERENCES chats(id) ON UPDATE CASCADE,
        thread_id INTEGER NOT NULL DEFAULT 0,
        creator_id INTEGER NOT NULL REFERENCES users(id),
        options TEXT NOT NULL CHECK (json_valid(options)),
        size INTEGER NOT NULL CHECK (size IN (2, 3)),
        started_at REAL NOT NULL,
        ends_at REAL NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('open', 'finished')),
        message_id INTEGER,                      -- the arena's one message in the group
        podium_message_id INTEGER                -- its podium, posted once
    );
    CREATE UNIQUE INDEX arenas_one_open_per_thread ON arenas (chat_id, thread_id) WHERE status = 'open';
    CREATE TABLE arena_players (
        arena_id INTEGER NOT NULL REFERENCES arenas(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL REFERENCES users(id),
        state TEXT NOT NULL CHECK (state IN ('in', 'paused', 'left')),
        berserk INTEGER NOT NULL DEFAULT 0,      -- goes berserk at their next deal
        free_since REAL NOT NULL,                -- waiting since (the longest wait is seated first)
        PRIMARY KEY (arena_id, user_id)
    );
    CREATE TABLE arena_games (
        arena_id INTEGER NOT NULL REFERENCES arenas(id) ON DELETE CASCADE,
        table_id INTEGER NOT NULL REFERENCES tables(id),
        user_id INTEGER NOT NULL REFERENCES users(id),
        base INTEGER,                            -- 2, 1 or 0 once its game ended; NULL while it is played
        finished_at REAL,
        PRIMARY KEY (table_id, user_id)
    );
    CREATE INDEX arena_games_arena ON arena_games (arena_id);
    ALTER TABLE tables ADD COLUMN arena_id INTEGER REFERENCES arenas(id);
    ALTER TABLE seats ADD COLUMN berserk INTEGER NOT NULL DEFAULT 0;
    DROP INDEX tables_one_live_per_thread;
    CREATE UNIQUE INDEX tables_one_live_per_thread ON tables (chat_id, thread_id)
        WHERE status IN ('lobby', 'playing') AND arena_id IS NULL;
    """,
    # 15: a series: a rematch carries it on (the first table of the chain names it), so the lobby and the
    # result show its score among the same players.
    """
    ALTER TABLE tables ADD COLUMN series_id INTEGER;
    """,
    # 16: a bot's move a player of the game reported as a bad one (/badmove): the position before it, so
    # bench/reports.py can check every level against every report.
    """
    CREATE TABLE move_reports (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,                    -- the move's place in the game's log (1: the first)
        seat INTEGER NOT NULL,
        position TEXT NOT NULL CHECK (json_valid(position)),  -- the game just before it (engine snapshot)
        move TEXT NOT NULL,
        level TEXT NOT NULL,                     -- how well the bot at that seat played
        reporter_id INTEGER NOT NULL REFERENCES users(id),
        note TEXT,
        created_at REAL NOT NULL,
        UNIQUE (game_id, seq, reporter_id)
    );
    """,
]

# PostgreSQL runs the same steps, translated by these rules (the only place the two schemas differ): 64-bit
# integers for Telegram ids and counts alike, ids the database hands out as identities, DOUBLE PRECISION for
# unix times, JSON checked by a cast, and no rowid tables. Released steps are translated again at every open:
# change a rule only in ways that give the same schema for them.
_POSTGRES_RULES: list[tuple[str, str]] = [
    (r"\bINTEGER PRIMARY KEY\b", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"),
    (r"\bINTEGER\b", "BIGINT"),
    (r"\bREAL\b", "DOUBLE PRECISION"),
    (r"json_valid\((\w+)\)", r"\1::jsonb IS NOT NULL"),
    (r"\)\s*WITHOUT ROWID;", ");"),
    (r"lower\(hex\(randomblob\(12\)\)\)", "md5(random()::text || id::text)"),
]


def postgres(step: str) -> str:
    """A SQLite migration step as PostgreSQL runs it."""
    for pattern, replacement in _POSTGRES_RULES:
        step = re.sub(pattern, replacement, step)
    return step


POSTGRES_MIGRATIONS = [postgres(step) for step in MIGRATIONS]

LATEST = len(MIGRATIONS)


class SchemaTooNew(RuntimeError):
    """The database was written by a newer version of the bot."""


def _too_new(current: int, known: int) -> SchemaTooNew:
    return SchemaTooNew(
        f"the database is at schema version {current}, newer than this code knows ({known}); "
        "upgrade the bot or restore a matching backup"
    )


async def schema_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def migrate_sqlite(conn: aiosqlite.Connection, migrations: list[str] | None = None) -> int:
    """Bring the schema to the latest version; returns the version reached. ``conn`` must be in autocommit
    mode (isolation_level=None) so each step controls its own transaction."""
    steps = MIGRATIONS if migrations is None else migrations
    current = await schema_version(conn)
    if current > len(steps):
        raise _too_new(current, len(steps))
    for version in range(current, len(steps)):
        await conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(steps[version]):
                await conn.execute(statement)
            await conn.execute(f"PRAGMA user_version = {version + 1}")
        except BaseException:
            await conn.execute("ROLLBACK")
            raise
        await conn.execute("COMMIT")
    return len(steps)


migrate = migrate_sqlite  # the name the SQLite tests and tools know


async def migrate_postgres(conn: psycopg.AsyncConnection[Any], migrations: list[str] | None = None) -> int:
    """The same for PostgreSQL (DDL is transactional there too), on a connection in autocommit mode. A
    session advisory lock makes processes that start together migrate one after the other; the version lives
    in the one-row table ``schema_version``."""
    steps = POSTGRES_MIGRATIONS if migrations is None else migrations
    await conn.execute("SELECT pg_advisory_lock(hashtext('durak schema'))")
    try:
        await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        await conn.execute(
            "INSERT INTO schema_version SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM schema_version)"
        )
        async with conn.cursor(row_factory=tuple_row) as cursor:
            await cursor.execute("SELECT version FROM schema_version")
            row = await cursor.fetchone()
        current = int(row[0]) if row is not None else 0
        if current > len(steps):
            raise _too_new(current, len(steps))
        for version in range(current, len(steps)):
            async with conn.transaction():
                await conn.execute(steps[version].encode())  # several statements: no parameters
                await conn.execute("UPDATE schema_version SET version = %s", (version + 1,))
    finally:
        await conn.execute("SELECT pg_advisory_unlock(hashtext('durak schema'))")
    return len(steps)


def _statements(script: str) -> list[str]:
    """Split a migration into statements (complete_statement knows about quotes and triggers)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            if current.strip():
                statements.append(current.strip())
            current = ""
    if current.strip():
        raise ValueError(f"incomplete SQL statement in migration: {current.strip()[:80]}")
    return statements
