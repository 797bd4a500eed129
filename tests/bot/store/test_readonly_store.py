"""A store that may only be read is searched and answered from without one byte written to it; every
write (ingest, a reading-list change) is refused with "the store at X is read-only: ...".

Three ways in: for real, on a read-only bind mount (root, in a mount namespace of its own) and with
the store chmod'ed read-only for a process that permissions really stop (root without the capability
to override them, or any other user); and in this process, the store declared read-only, which also
runs where neither can.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.app import Paperbot
from bot.errors import StoreReadOnly
from bot.settings import Settings
from bot.store import Store, StorePaths, failures, readonly
from bot.store.chroma import VectorStore

pytestmark = pytest.mark.slow

# Runs the CLI in one process (the model loads once) and prints {name: [exit code, stdout, stderr]}.
DRIVER = """
import contextlib, io, json, sys
from bot.cli import main
store, extra = sys.argv[1], sys.argv[2]
runs = {}
for name, args in [
    ("search", ["search", "counting penguins in drone images", "--json"]),
    ("ask", ["ask", "How are penguins counted in drone images?", "--json"]),
    ("list", ["list", "add", "to read", "PenguinCount"]),
    ("ingest", ["ingest", extra]),
    ("search again", ["search", "forecasting tide heights at harbours", "--json"]),
]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--store", store, *args])
    runs[name] = [code, out.getvalue(), err.getvalue()]
print(json.dumps(runs))
"""
# Root keeps its uid (so it can reach the interpreter under /root) but loses the capabilities that
# let it write files whose permissions say no.
NO_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]


def _files(folder: Path) -> dict[str, str]:
    """Every file under `folder` with the hash of its content."""
    return {
        str(f.relative_to(folder)): hashlib.sha256(f.read_bytes()).hexdigest() for f in folder.rglob("*") if f.is_file()
    }


def _mount_namespaces() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "--mount", "true"], capture_output=True).returncode == 0


@pytest.fixture
def two_paper_store(
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    write_abstracts: Callable[..., Path],
    small_abstracts: dict[str, str],
    run_ingest: Callable[..., Any],
) -> tuple[Settings, Path]:
    """A store of PenguinCount and TideBench whose BM25 index and vector cache are gone (as in a store
    from before ingest kept them: a reader must build both), and a file of two more abstracts to try
    ingesting."""
    texts = list(small_abstracts.values())
    settings = settings_for(tmp_path / "store")
    assert run_ingest(settings, [write_abstracts(tmp_path / "two.txt", texts[:2])]).added == 2
    paths = StorePaths(settings.store)
    shutil.rmtree(paths.lexical)
    (cache,) = paths.vector_caches()  # the ingest left one
    cache.unlink()
    return settings, write_abstracts(tmp_path / "more" / "two-more.txt", texts[2:])


@pytest.fixture
def read_only_mode(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Stores opened in this test count as read-only, as they do on read-only media."""
    monkeypatch.setattr(failures, "writable", lambda folder: False)
    yield


def _check_driver_runs(runs: dict[str, list[Any]], store: Path) -> None:
    for name in ("search", "ask", "search again"):
        assert runs[name][0] == 0, (name, runs[name][2])
    assert json.loads(runs["search"][1])["results"][0]["label"] == "PenguinCount"
    assert "PenguinCount" in json.loads(runs["ask"][1])["answer"]
    assert json.loads(runs["search again"][1])["results"][0]["label"] == "TideBench"
    for name, what in (("list", "its reading lists cannot be changed"), ("ingest", "ingest cannot write to it")):
        code, out, err = runs[name]
        assert (code, out) == (StoreReadOnly.exit_code, "")
        assert err.startswith(f"paperbot: error: the store at {store} is read-only: {what} ("), err
        assert "search and ask still work" in err and "Traceback" not in err


def test_a_store_on_a_read_only_file_system_is_searched_and_refuses_writes(
    two_paper_store: tuple[Settings, Path], tmp_path: Path
) -> None:
    if not _mount_namespaces():
        pytest.skip("needs root and `unshare --mount` to bind-mount the store read-only")
    settings, extra = two_paper_store
    store, cache = settings.store, tmp_path / "cache"
    before = _files(store)
    arguments = [str(store), sys.executable, DRIVER, str(extra)]
    mount_read_only = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" && exec "$2" -c "$3" "$1" "$4"'
    run = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", mount_read_only, "sh", *arguments],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "XDG_CACHE_HOME": str(cache)},
    )
    assert run.returncode == 0, run.stderr
    runs = json.loads(run.stdout)
    _check_driver_runs(runs, store)
    assert "on a read-only file system" in runs["ingest"][2]
    assert _files(store) == before  # not one byte written
    saved = StorePaths(readonly.cache_folder(store, cache / "paperbot"))
    assert (saved.lexical / "index.json").is_file() and len(saved.vector_caches()) == 1
    assert (saved.chroma / "chroma.sqlite3").is_file()  # Chroma read a copy of its files


def test_a_store_its_user_may_not_write_is_searched_and_refuses_writes(
    two_paper_store: tuple[Settings, Path], tmp_path: Path
) -> None:
    settings, extra = two_paper_store
    store, cache = settings.store, tmp_path / "cache"
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("root passes permission checks; needs setpriv to drop the capability that lets it")
    prefix = NO_OVERRIDE if os.geteuid() == 0 else []
    before = _files(store)
    for path in [store, *store.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else 0o444)  # as `chmod -R a-w`
    try:
        touch = subprocess.run([*prefix, "touch", str(store / "probe")], capture_output=True, text=True)
        assert touch.returncode != 0 and "Permission denied" in touch.stderr  # permissions really stop it
        run = subprocess.run(
            [*prefix, sys.executable, "-c", DRIVER, str(store), str(extra)],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "XDG_CACHE_HOME": str(cache)},
        )
    finally:
        for path in [store, *store.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
    assert run.returncode == 0, run.stderr
    runs = json.loads(run.stdout)
    _check_driver_runs(runs, store)
    assert "this user may not write to it" in runs["ingest"][2]
    assert _files(store) == before


def test_a_store_declared_read_only_reads_through_the_cache_folder_and_writes_nothing(
    two_paper_store: tuple[Settings, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_only_mode: None
) -> None:
    settings, _ = two_paper_store
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    before = _files(settings.store)
    bot = Paperbot(settings)
    assert bot.store.read_only
    assert bot.search("counting penguins in drone images", k=1).hits[0].paper.label == "PenguinCount"
    refused = pytest.raises(StoreReadOnly, match=r"^the store at .* is read-only: ingest cannot write to it")
    with refused, bot.store.writing():
        pass
    with pytest.raises(StoreReadOnly, match="its reading lists cannot be changed"):
        bot.store.lists.add("to read", list(bot.papers().values()))
    assert bot.store.lists.names() == []
    assert _files(settings.store) == before
    saved = bot.store.saves
    assert saved.folder == readonly.cache_folder(settings.store, tmp_path / "cache" / "paperbot")
    assert (saved.lexical / "index.json").is_file() and len(saved.vector_caches()) == 1

    # The next reader finds the BM25 index and the vectors in the cache folder: Chroma stays closed.
    monkeypatch.setattr(VectorStore, "_connect", lambda self: pytest.fail("opened Chroma despite the cache"))
    again = Paperbot(settings)
    assert again.search("forecasting tide heights at harbours", k=1).hits[0].paper.label == "TideBench"
    assert _files(settings.store) == before


def test_a_read_only_folder_without_a_store_reads_as_empty_and_creates_nothing(
    tmp_path: Path, settings_for: Callable[..., Settings], read_only_mode: None
) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    store = Store.open(settings_for(folder), cache=tmp_path / "cache")
    assert (store.paper_count(), store.papers(), store.vectors.count(), store.lists.names()) == (0, {}, 0, [])
    with pytest.raises(StoreReadOnly), store.writing():
        pass
    assert list(folder.iterdir()) == []
