"""A server noticing its store folder replaced or deleted: the identity check over stand-in cores
(fast), then a real Paperbot whose store is swapped for another and answers from the new one."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from bot.errors import StoreError
from bot.settings import Settings
from bot.store.paths import StorePaths
from bot.ui.watch import Identity, WatchedCore


class Stub:
    """A core that says which one it is."""

    def __init__(self, settings: Settings, name: str) -> None:
        self.settings, self.name = settings, name

    def paper_count(self) -> int:
        return len(self.name)

    def ask(self, question: str, generator: Any = None, previous: Any = None) -> Any:
        return f"{self.name}: {question}"


OPEN: list[Any] = []


def _store(folder: Path) -> Path:
    """A store folder with a registry file, held open as the core's registry connection holds it (so
    its inode is not handed to the next file made, as it would be once closed and deleted)."""
    folder.mkdir(parents=True)
    StorePaths(folder).registry.write_bytes(b"registry")
    OPEN.append(StorePaths(folder).registry.open("rb"))
    return folder


@pytest.fixture(autouse=True)
def _close_registries() -> Any:
    yield
    while OPEN:
        OPEN.pop().close()


def _settings(folder: Path) -> Settings:
    return Settings(store=folder, chroma_url=None)


def test_an_untouched_store_keeps_its_core(tmp_path: Path) -> None:
    settings = _settings(_store(tmp_path / "store"))
    watched = WatchedCore(Stub(settings, "old"), reopen=None)  # type: ignore[arg-type]
    StorePaths(settings.store).registry.write_bytes(b"written in place, as SQLite does")
    assert watched.ask("q") == "old: q"
    assert watched.paper_count() == 3


def test_a_replaced_store_without_reopen_says_to_restart(tmp_path: Path) -> None:
    folder = _store(tmp_path / "store")
    watched = WatchedCore(Stub(_settings(folder), "old"), reopen=None)  # type: ignore[arg-type]
    folder.rename(tmp_path / "old-store")
    _store(tmp_path / "other").rename(folder)
    with pytest.raises(StoreError, match=r"store folder .*store was replaced while the server was running.*restart"):
        watched.ask("q")


def test_a_replaced_store_is_opened_again_once(tmp_path: Path) -> None:
    folder = _store(tmp_path / "store")
    settings = _settings(folder)
    opened: list[str] = []

    def reopen() -> Stub:
        opened.append("new")
        return Stub(settings, "new")

    watched = WatchedCore(Stub(settings, "old"), reopen=reopen)  # type: ignore[arg-type]
    shutil.rmtree(folder)
    _store(tmp_path / "other").rename(folder)
    assert watched.ask("q") == "new: q"
    assert watched.ask("again") == "new: again"
    assert opened == ["new"]  # the new store's identity is now the one watched


def test_a_deleted_store_says_so(tmp_path: Path) -> None:
    folder = _store(tmp_path / "store")
    watched = WatchedCore(Stub(_settings(folder), "old"), reopen=lambda: pytest.fail("nothing to reopen"))  # type: ignore[arg-type]
    shutil.rmtree(folder)
    for call in (lambda: watched.ask("q"), watched.paper_count):
        with pytest.raises(StoreError, match=r"store folder .*store was deleted while the server was running"):
            call()


def test_a_store_created_after_the_server_started_is_the_same_store(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    watched = WatchedCore(Stub(_settings(folder), "old"), reopen=lambda: pytest.fail("not a replacement"))  # type: ignore[arg-type]
    assert Identity.of(folder) == Identity(None, None)
    _store(folder)  # the seed load creates it
    assert watched.ask("q") == "old: q"
    shutil.rmtree(folder)  # and once it existed, its deletion is noticed
    with pytest.raises(StoreError, match="deleted"):
        watched.ask("q")


@pytest.mark.slow
def test_a_real_store_swapped_under_a_running_core_is_answered_from(
    tmp_path: Path, settings_for: Any, run_ingest: Any, write_abstracts: Any, small_abstracts: dict[str, str]
) -> None:
    from bot.app import Paperbot

    first, second = list(small_abstracts.items())[:2], list(small_abstracts.items())[2:]
    for name, papers in (("a", first), ("b", second)):
        run_ingest(settings_for(tmp_path / name), [write_abstracts(tmp_path / f"{name}.txt", [t for _, t in papers])])
    settings = settings_for(tmp_path / "a")
    watched = WatchedCore(Paperbot(settings), reopen=lambda: Paperbot(settings))
    question = "What does QuillNet restore, and how are penguins counted?"
    assert {c.paper.label for c in watched.ask(question).citations} == {"PenguinCount"}

    (tmp_path / "a").rename(tmp_path / "a-before")
    (tmp_path / "b").rename(tmp_path / "a")
    cited = {c.paper.label for c in watched.ask(question).citations}
    assert cited == {"QuillNet"}  # from the store now in the folder, not the corpus read before
    assert watched.paper_count() == 2
