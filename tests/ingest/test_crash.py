"""A crash mid-ingest loses nothing: `paperbot ingest` killed with SIGKILL, then run again."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.app import Paperbot
from bot.settings import Settings
from bot.store.paths import StorePaths

pytestmark = pytest.mark.slow


def _registered(store: Path) -> int:
    """Papers in the registry right now, read as another process would."""
    try:
        with sqlite3.connect(f"file:{StorePaths(store).registry}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM papers").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


def test_ingest_killed_mid_way_keeps_what_it_committed_and_the_next_run_completes(
    tmp_path: Path,
    seeded_store: Settings,
    settings_for: Callable[..., Settings],
    run_ingest: Callable[..., Any],
) -> None:
    store = tmp_path / "store"
    env = {**os.environ, "PAPERBOT_STORAGE__EMBED_WINDOW": "8", "PAPERBOT_STORAGE__WRITE_BATCH": "4"}
    command = [sys.executable, "-m", "bot", "--store", str(store), "ingest", str(seeded_store.seeds)]
    run = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while _registered(store) < 8 and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=30)
    assert run.returncode == -signal.SIGKILL, "ingest finished before it could be killed"

    total = Paperbot(seeded_store).paper_count()
    bot = Paperbot(settings_for(store))
    committed = set(bot.papers())
    assert 8 <= len(committed) < total
    assert committed <= bot.store.vector_paper_ids()  # every registered paper has its vectors

    report = run_ingest(bot, [seeded_store.seeds])
    assert (report.added, report.unchanged, report.papers) == (total - len(committed), len(committed), total)
    assert set(bot.papers()) == bot.store.vector_paper_ids()
    # Vectors of papers caught between the two writes were overwritten, not duplicated.
    assert bot.store.vectors.count() == Paperbot(seeded_store).store.vectors.count()
    top = bot.search("calibrated model trust for safe policy improvement", k=1).hits[0]
    assert top.paper.label == "Cal-SPI"
