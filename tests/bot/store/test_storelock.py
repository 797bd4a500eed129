"""One writer per store: a second ingest fails at once with a clear message; a dead holder frees it."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bot.errors import StoreError
from bot.store.lock import writer, writing
from bot.store.paths import StorePaths
from bot.store.registry import Registry

HOLD = (
    "import sys, time; from pathlib import Path; from bot.store.lock import writing\n"
    "with writing(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(600)\n"
)


def test_a_second_writer_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    me = rf"\(pid {os.getpid()} on {re.escape(socket.gethostname())}\)"
    refused = pytest.raises(StoreError, match=rf"another paperbot process {me} is writing")
    with writing(tmp_path), refused, writing(tmp_path):
        pass
    assert not StorePaths(tmp_path).holder.exists()  # released: the holder's name is gone
    with writing(tmp_path):  # and the lock is free again
        pass


@pytest.mark.slow
def test_ingest_into_a_store_being_written_fails_and_changes_nothing(tmp_path: Path, seeds_dir: Path) -> None:
    store = tmp_path / "store"
    with writing(store):
        run = subprocess.run(
            [sys.executable, "-m", "bot", "--store", str(store), "ingest", str(seeds_dir)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert run.returncode == StoreError.exit_code
    holder = f"(pid {os.getpid()} on {socket.gethostname()})"
    assert f"another paperbot process {holder} is writing to the store in {store}" in run.stderr
    assert "Traceback" not in run.stderr
    assert Registry(store).papers() == {}


def test_a_killed_holder_leaves_no_stale_lock(tmp_path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(StoreError, match=rf"\(pid {holder.pid} on "), writing(tmp_path):
            pass
    finally:
        holder.kill()
        holder.wait(timeout=30)
    with writing(tmp_path):
        pass


def test_a_folder_that_cannot_be_locked_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    refused = pytest.raises(StoreError, match=r"cannot lock the store in .* check that the folder is writable")
    with refused, writing(blocker / "store"):
        pass


@pytest.mark.slow
def test_a_reader_during_an_ingest_builds_the_index_in_memory_and_leaves_the_files_alone(store_copy) -> None:
    from bot.app import Paperbot

    bot = Paperbot(store_copy)
    bot.store.registry.write(upsert=[])  # the registry moves on, as it does every 16 papers of an ingest
    lexical = StorePaths(store_copy.store).lexical
    before = (lexical / "index.json").read_text(encoding="utf-8")
    with writing(store_copy.store):  # an ingest is writing
        assert bot.search("safe policy improvement with calibrated model trust", k=1).hits[0].paper.label == "Cal-SPI"
        assert (lexical / "index.json").read_text(encoding="utf-8") == before  # not saved meanwhile
    bot.store.registry.write(upsert=[])
    bot.search("safe policy improvement", k=1)  # no ingest now: the reader saves what it built
    assert (lexical / "index.json").read_text(encoding="utf-8") != before


def test_a_reader_of_a_store_still_being_filled_is_told_so(tmp_path: Path, run_cli) -> None:
    """A search during a first ingest is told an ingest is filling the store, not just 'the store is empty'."""
    store = tmp_path / "store"
    with writing(store):
        assert writer(store) == f"pid {os.getpid()} on {socket.gethostname()}"
        run = run_cli("search", "GRPO", "--store", store)
        assert run.code == 3
        assert f"still empty: an ingest (pid {os.getpid()} on " in run.err
    assert writer(store) is None
    run = run_cli("search", "GRPO", "--store", store)  # no writer now: the plain message
    assert (run.code, run.err.startswith("paperbot: error: the store is empty")) == (2, True)


def test_a_holder_file_left_by_a_killed_writer_names_nobody(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    StorePaths(tmp_path).holder.write_text(f"{dead.stdout.strip()} {socket.gethostname()}")
    assert writer(tmp_path) is None


@pytest.mark.slow
def test_a_long_running_reader_sees_papers_another_process_ingested(store_copy, tmp_path: Path) -> None:
    """The chat server keeps one Paperbot for hours; an ingest from the command line must not leave
    its Chroma view stale ("Error finding id") but show up in its next search."""
    from bot.app import Paperbot

    reader = Paperbot(store_copy)
    before = len(reader.corpus().paper_ids)
    new = tmp_path / "new.jsonl"
    abstracts = [
        "We propose Quokka-RL, a reinforcement learning method for marsupial habitat planning.",
        "We introduce Wombat-Bench, a benchmark of burrow-digging robots in sandy soil.",
    ]
    new.write_text("".join(json.dumps({"abstract": a}) + "\n" for a in abstracts))
    run = subprocess.run(
        [sys.executable, "-m", "bot", "--store", str(store_copy.store), "ingest", str(new)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    for cache in StorePaths(store_copy.store).vector_caches():
        cache.unlink()  # no other reader wrote the cache for it: this one reads Chroma itself
    assert len(reader.corpus().paper_ids) == before + 2
    assert "Quokka-RL" in reader.search("Quokka-RL marsupial habitat", k=1).hits[0].paper.display
