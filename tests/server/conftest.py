"""Fixtures of the team server's tests: a :class:`~tests.server.kit.Team`
over a new database of the session's throwaway PostgreSQL server (skipped
without PostgreSQL), or over the project's SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.kit import Team


@pytest.fixture
def team(tmp_path: Path, now: str) -> Iterator[Team]:
    """A PostgreSQL-backed server with no replica started yet."""
    from tests.plugins.postgres_server import new_database_dsn

    made = Team(tmp_path, "postgres", new_database_dsn())
    yield made
    made.close()


@pytest.fixture
def sqlite_team(tmp_path: Path, now: str) -> Iterator[Team]:
    made = Team(tmp_path, "sqlite", None)
    yield made
    made.close()
