import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from tests import postgres

# "ci" keeps the whole suite within minutes on 2 cores; "thorough" is for runs by hand:
#   HYPOTHESIS_PROFILE=thorough .venv/bin/python -m pytest tests/engine/test_properties.py
settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "thorough", max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str | None]:
    """A PostgreSQL server for this run, started on first use (see tests/postgres.py), or None."""
    with postgres.server() as url:
        yield url


@pytest.fixture
def postgres_url(postgres_server: str | None) -> Iterator[str]:
    """A fresh database on that server for one test; the test is skipped without a server."""
    if postgres_server is None:
        pytest.skip(postgres.reason())
    with postgres.fresh_database(postgres_server) as url:
        yield url
