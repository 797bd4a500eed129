"""An ingest killed after its last commit but before saving the BM25 index: the next ingest notices
the index does not match the registry, says so, and rebuilds it even when it has nothing to add."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.app import Paperbot
from bot.settings import Settings
from bot.store import StorePaths

pytestmark = pytest.mark.slow

# `paperbot ingest`, killed (SIGKILL, nothing runs after it) the moment it starts saving the BM25 index.
KILLED_AT_SAVE = """
import os, signal, sys
from bot.store.lexical import LexicalIndex
LexicalIndex.save = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL)
from bot.cli import main
main(["--store", sys.argv[1], "ingest", *sys.argv[2:]])
"""


def test_the_next_ingest_rebuilds_a_bm25_index_a_kill_left_behind(
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    write_abstracts: Callable[..., Path],
    small_abstracts: dict[str, str],
    run_ingest: Callable[..., Any],
) -> None:
    texts = list(small_abstracts.values())
    corpus = tmp_path / "corpus"
    write_abstracts(corpus / "a.txt", texts[:3])
    gone = write_abstracts(corpus / "b.txt", texts[3:])
    settings = settings_for(tmp_path / "store")
    assert run_ingest(settings, [corpus]).added == 4
    index = StorePaths(settings.store).lexical / "index.json"
    saved_before = index.read_text()

    # A pruning ingest embeds nothing, so the killed process never loads the model.
    gone.unlink()
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_AT_SAVE, str(settings.store), str(corpus), "--prune"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    bot = Paperbot(settings)
    assert len(bot.papers()) == 3  # the removal committed ...
    assert index.read_text() == saved_before and bot.store.saved_lexical() is None  # ... the index not

    report = run_ingest(bot, [corpus], prune=True)
    assert (report.added, report.removed, report.unchanged, report.papers) == (0, 0, 3, 3)
    # The ingest's report says what it repaired (the CLI prints its warnings).
    said = report.warnings
    assert any("did not match the stored papers" in m and m.endswith("rebuilt it") for m in said), said
    lexical = bot.store.saved_lexical()
    assert lexical is not None and sorted(lexical.paper_ids) == sorted(bot.papers())
    assert lexical.scores("queen loss hive acoustics").max() == 0  # the pruned paper is out of the index
    tide = next(pid for pid, paper in bot.papers().items() if paper.label == "TideBench")
    assert lexical.paper_ids[int(lexical.scores("tide heights harbour gauge").argmax())] == tide

    # The store hands the note to its caller too (for the ingest's report), when there is something to repair.
    with bot.store.writing():
        assert bot.store.prepare_write(rebuild=False) == []
    shutil.rmtree(index.parent)
    with bot.store.writing():
        (note,) = bot.store.prepare_write(rebuild=False)
    assert note.startswith(f"the BM25 index in {index.parent} did not match the stored papers")
    assert bot.store.saved_lexical() is not None
