"""A full disk: whichever write finds no space (Chroma's, the registry's, the BM25 index's), ingest
stops with "no space left on the disk holding STORE; free N MB or choose another --store", the store
keeps its last commit, and the next run completes.

In this process each write point is made to fail as a full disk reports it (OSError 28, SQLite's
"database or disk is full", Chroma's compaction error on a disk short of space); for real, on a
small tmpfs filled up, in a mount namespace of its own (root only).
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bm25s
import pytest

from bot.app import Paperbot
from bot.errors import DiskFull
from bot.settings import Settings
from bot.store import StorePaths, failures
from bot.store.database import Database

pytestmark = pytest.mark.slow

MESSAGE = r"^no space left on the disk holding {store}; free (\d+) MB or choose another --store$"


def _full(*_: Any, **__: Any) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


class _FullConnection:
    """The registry's SQLite connection, whose writes find the disk full as SQLite reports it."""

    def __init__(self, real: sqlite3.Connection) -> None:
        self._real = real

    def __enter__(self) -> _FullConnection:
        self._real.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self._real.__exit__(*exc)

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE", "CREATE")):
            raise sqlite3.OperationalError("database or disk is full")
        return self._real.execute(sql, *args)

    def executemany(self, sql: str, rows: Any) -> sqlite3.Cursor:
        raise sqlite3.OperationalError("database or disk is full")


def _chroma_full(bot: Paperbot, monkeypatch: pytest.MonkeyPatch) -> None:
    collection = bot.store.vectors._opened()
    assert collection is not None
    monkeypatch.setattr(type(collection), "upsert", _full)


def _compaction_fails(bot: Paperbot, monkeypatch: pytest.MonkeyPatch) -> None:
    def compaction(*_: Any, **__: Any) -> None:
        raise RuntimeError("Error in compaction: Failed to apply logs to the metadata segment")

    collection = bot.store.vectors._opened()
    assert collection is not None
    monkeypatch.setattr(type(collection), "upsert", compaction)
    monkeypatch.setattr(failures, "free_bytes", lambda folder: 0)


def _registry_full(bot: Paperbot, monkeypatch: pytest.MonkeyPatch) -> None:
    database: Database = bot.store.registry.database
    monkeypatch.setattr(database, "_connection", _FullConnection(database._connection))


def _lexical_full(bot: Paperbot, monkeypatch: pytest.MonkeyPatch) -> None:
    def half_then_full(self: bm25s.BM25, path: str, *_: Any, **__: Any) -> None:
        Path(path).mkdir(parents=True, exist_ok=True)
        (Path(path) / "params.index.json").write_text("{")  # a file half written
        _full()

    monkeypatch.setattr(bm25s.BM25, "save", half_then_full)


WRITE_POINTS = {
    "chroma upsert (OSError 28)": (_chroma_full, 0),
    "chroma compaction on a short disk": (_compaction_fails, 0),
    "registry commit (SQLite)": (_registry_full, 0),
    "BM25 index save (OSError 28)": (_lexical_full, 2),  # its papers were committed before the index
}


@pytest.fixture
def two_and_two(
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    write_abstracts: Callable[..., Path],
    small_abstracts: dict[str, str],
    run_ingest: Callable[..., Any],
) -> tuple[Paperbot, Path]:
    """A store of two small abstracts, and a file of the other two."""
    texts = list(small_abstracts.values())
    bot = Paperbot(settings_for(tmp_path / "store"))
    assert run_ingest(bot, [write_abstracts(tmp_path / "a.txt", texts[:2])]).added == 2
    return bot, write_abstracts(tmp_path / "b.txt", texts[2:])


@pytest.mark.parametrize("point", list(WRITE_POINTS))
def test_a_full_disk_at_any_write_is_one_message_and_the_next_run_completes(
    point: str, two_and_two: tuple[Paperbot, Path], monkeypatch: pytest.MonkeyPatch, run_ingest: Callable[..., Any]
) -> None:
    bot, more = two_and_two
    store = bot.settings.store
    lexical = StorePaths(store).lexical
    index_before = (lexical / "index.json").read_text()
    before = set(bot.papers())
    make_full, committed = WRITE_POINTS[point]
    with monkeypatch.context() as patch:
        make_full(bot, patch)
        with pytest.raises(DiskFull) as full:
            run_ingest(bot, [more])
    assert re.match(MESSAGE.format(store=re.escape(str(store))), str(full.value)), str(full.value)
    # As it was, or with whole batches committed: every registered paper has its vectors, the BM25
    # index is the one saved before and no half-written file is left.
    assert len(set(bot.papers()) - before) == committed
    assert set(bot.papers()) <= bot.store.vector_paper_ids()
    assert (lexical / "index.json").read_text() == index_before
    assert not lexical.with_name("lexical.tmp").exists()

    report = run_ingest(bot, [more])
    assert (report.added, report.papers) == (2 - committed, 4)
    assert set(bot.papers()) == bot.store.vector_paper_ids()
    assert bot.store.saved_lexical() is not None  # the index matches the registry again
    assert bot.search("queen loss from hive acoustics", k=1).hits[0].paper.label == "Beekeeping sensors"


def test_the_words_of_a_full_disk_and_of_a_read_only_store_are_recognised() -> None:
    full = [
        OSError(errno.ENOSPC, "No space left on device"),
        OSError(errno.EDQUOT, "Disk quota exceeded"),
        sqlite3.OperationalError("database or disk is full"),
        RuntimeError("error returned from database: (code: 13) database or disk is full"),
        RuntimeError("Failed to write: No space left on device (os error 28)"),
    ]
    read_only = [
        OSError(errno.EROFS, "Read-only file system"),
        PermissionError(errno.EACCES, "Permission denied"),
        sqlite3.OperationalError("attempt to write a readonly database"),
        RuntimeError("error returned from database: (code: 8) attempt to write a readonly database"),
    ]
    wrapped = RuntimeError("cannot open the Chroma store")
    wrapped.__cause__ = full[2]
    assert all(failures.is_disk_full(exc) for exc in [*full, wrapped])
    assert not any(failures.is_disk_full(exc) for exc in read_only)
    assert all(failures.is_read_only(exc) for exc in read_only)
    assert not any(failures.is_read_only(exc) for exc in full)
    assert failures.translate(ValueError("Error finding id"), Path("s"), "x", compaction=True) is None


def test_the_space_asked_for_is_what_a_write_rewrites_plus_headroom(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = StorePaths(tmp_path)
    (paths.lexical / "bm25").mkdir(parents=True)
    (paths.lexical / "bm25" / "vocab.index.json").write_bytes(b"x" * 3 * failures.MB)
    (paths.chroma / "segment").mkdir(parents=True)
    (paths.chroma / "segment" / "data_level0.bin").write_bytes(b"x" * 5 * failures.MB)
    (paths.chroma / "chroma.sqlite3").write_bytes(b"x" * 7 * failures.MB)  # grows by a batch, not rewritten
    assert failures.needed_bytes(tmp_path) == 8 * failures.MB + failures.HEADROOM
    monkeypatch.setattr(failures, "free_bytes", lambda folder: 2 * failures.MB)
    # e.g. 3 + 5 + 16 = 24 MB needed, 2 MB free -> 22 MB
    assert str(failures.disk_full(tmp_path)).endswith("; free 22 MB or choose another --store")
    monkeypatch.setattr(failures, "free_bytes", lambda folder: 100 * failures.MB)
    assert "; free 16 MB or" in str(failures.disk_full(tmp_path))  # the estimate fell short: ask for headroom


# --- For real: a 64 MB tmpfs, filled up ---

# Inside a mount namespace of its own: the store (two papers, searched once) is copied onto a new
# tmpfs, the disk is filled, ingest and search run as a user runs them, and the store is copied back
# out for the test to check.
TMPFS = """
import json, os, re, shutil, subprocess, sys
from pathlib import Path
built, mount, more, back = (Path(a) for a in sys.argv[1:5])
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)], check=True)
store, filler = mount / "store", mount / "filler"
shutil.copytree(built, store)
steps = {}

def cli(name, *args):
    run = subprocess.run([sys.executable, "-m", "bot", "--store", str(store), *args], capture_output=True, text=True)
    steps[name] = [run.returncode, run.stdout, run.stderr]

def leave_free(kb):
    with filler.open("ab") as f:
        try:
            while True:
                f.write(b"x" * 65536)
                f.flush()
        except OSError:
            pass
    os.truncate(filler, max(0, filler.stat().st_size - kb * 1024))

leave_free(0)
cli("ingest on a full disk", "ingest", str(more), "--json")
leave_free(24)  # room to start the ingest; Chroma runs out while writing it
cli("ingest running out", "ingest", str(more), "--json")
with __import__("sqlite3").connect(f"file:{store / 'papers.sqlite'}?mode=ro", uri=True) as db:
    steps["registered when full"] = db.execute("SELECT COUNT(*) FROM papers").fetchone()[0]
cli("search on a full disk", "search", "forecasting tide heights at harbours", "--json")
asked = int(re.search(r"free (\\d+) MB", steps["ingest running out"][2]).group(1))
os.truncate(filler, max(0, filler.stat().st_size - asked * 1024 * 1024))
cli("ingest after freeing", "ingest", str(more), "--json")
shutil.copytree(store, back)
print(json.dumps(steps))
"""


def _mount_namespaces() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "--mount", "true"], capture_output=True).returncode == 0


def test_a_real_full_disk_is_one_message_searching_still_works_and_freeing_what_it_asks_completes(
    two_and_two: tuple[Paperbot, Path], tmp_path: Path, settings_for: Callable[..., Settings]
) -> None:
    if not _mount_namespaces():
        pytest.skip("needs root and `unshare --mount` to mount a small tmpfs")
    bot, more = two_and_two
    bot.corpus()  # a first search leaves the vector cache beside the store
    (mount := tmp_path / "disk").mkdir()
    back = tmp_path / "back"
    arguments = [str(bot.settings.store), str(mount), str(more), str(back)]
    run = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", sys.executable, "-c", TMPFS, *arguments],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    steps = json.loads(run.stdout)
    store = re.escape(str(mount / "store"))
    for name in ("ingest on a full disk", "ingest running out"):
        code, out, err = steps[name]
        assert (code, out) == (DiskFull.exit_code, ""), (name, err)
        last = err.strip().splitlines()[-1]  # after the progress lines of an ingest that ran out mid-way
        assert re.match(MESSAGE.format(store=store), last.removeprefix("paperbot: error: ")), (name, err)
        assert "Traceback" not in err
    assert steps["registered when full"] == 2  # the store as it was
    assert steps["search on a full disk"][0] == 0, steps["search on a full disk"][2]
    assert json.loads(steps["search on a full disk"][1])["results"][0]["label"] == "TideBench"
    assert steps["ingest after freeing"][0] == 0, steps["ingest after freeing"][2]
    after = json.loads(steps["ingest after freeing"][1])
    assert (after["added"], after["papers"]) == (2, 4)

    recovered = Paperbot(settings_for(back))
    assert set(recovered.papers()) == recovered.store.vector_paper_ids()
    assert recovered.search("queen loss from hive acoustics", k=1).hits[0].paper.label == "Beekeeping sensors"
