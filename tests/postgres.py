"""A throwaway PostgreSQL server for the tests that need one: ``DURAK_TEST_POSTGRES_URL`` if set (a server
the tests may create and drop databases on), else one started here from the installed binaries (Debian's
``postgresql`` package, or any ``initdb`` on the PATH) in a temporary directory, else None: those tests are
skipped, saying why.

It runs with ``fsync=off``: these tests check what the bot writes and reads, not a power loss (the SQLite
suite does that).
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

URL_VARIABLE = "DURAK_TEST_POSTGRES_URL"


def binaries() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``: the PATH's, else the newest of Debian's."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    return versions[-1].parent if versions else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def server() -> Iterator[str | None]:
    """The URL of a server's maintenance database, or None (with the reason in ``why``) if there is none."""
    if os.environ.get(URL_VARIABLE):
        yield os.environ[URL_VARIABLE]
        return
    bin_dir = binaries()
    if bin_dir is None:
        yield None
        return
    # PostgreSQL refuses to run as root: then it runs as the postgres user the package created.
    prefix: list[str] = []
    owner = None
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            yield None
            return
        prefix = ["runuser", "-u", "postgres", "--"]
    with tempfile.TemporaryDirectory(prefix="durak-pg-") as tmp:
        home = Path(tmp)
        if owner is not None:
            os.chown(home, owner.pw_uid, owner.pw_gid)
        data, port = home / "data", _free_port()
        run = [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data)]
        subprocess.run(
            [
                *prefix,
                str(bin_dir / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
            ],
            check=True,
            capture_output=True,
        )
        options = f"-p {port} -k {home} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        subprocess.run(
            [*run, "-o", options, "-l", str(home / "log"), "-w", "-t", "60", "start"],
            check=True,
            capture_output=True,
        )
        try:
            yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run([*run, "-m", "immediate", "-w", "stop"], capture_output=True)


def reason() -> str:
    return (
        f"no PostgreSQL server: set {URL_VARIABLE}, or install PostgreSQL (apt-get install postgresql) "
        "so the tests start one"
    )


@contextmanager
def fresh_database(admin_url: str) -> Iterator[str]:
    """A new empty database on the server for one test, dropped after it."""
    name = "durak_" + uuid.uuid4().hex[:12]
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}".encode())
    try:
        yield urlunsplit(urlsplit(admin_url)._replace(path="/" + name))
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)".encode())
