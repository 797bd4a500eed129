"""Changing decisive settings: the old index is refused, and `ingest --rebuild` replaces it, embedding every
stored paper again from the registry: none is lost, whatever paths the rebuild is given, and one that fails
or is stopped part way leaves every paper stored for the next ingest to finish."""

import pytest

import ingest.pipeline
from bot.app import Paperbot
from bot.errors import FingerprintError, ModelError
from bot.settings import ChunkSettings, EmbedSettings
from bot.store import Store

pytestmark = pytest.mark.slow


def test_rebuild_replaces_an_index_built_with_other_settings(
    tmp_path, settings_for, write_abstracts, small_abstracts, run_ingest
):
    corpus = write_abstracts(tmp_path / "a.txt", list(small_abstracts.values()))
    store = tmp_path / "store"
    assert run_ingest(settings_for(store), [corpus]).added == 4

    changed = settings_for(store, chunk=ChunkSettings(max_tokens=60))
    with pytest.raises(FingerprintError, match="--rebuild"):
        Paperbot(changed).search("penguins")
    report = run_ingest(changed, [corpus], rebuild=True)
    assert (report.papers, report.added, report.unchanged, report.removed) == (4, 0, 4, 0)
    assert Paperbot(changed).search("counting penguins from drones").hits[0].paper.label == "PenguinCount"


def test_a_rebuild_keeps_the_papers_of_files_it_is_not_given(
    tmp_path, settings_for, write_abstracts, small_abstracts, run_ingest
):
    """`ingest --rebuild one.jsonl` kept only one.jsonl's papers, reporting none removed (a new user's find)."""
    texts = list(small_abstracts.values())
    first, second = write_abstracts(tmp_path / "a.txt", texts[:3]), write_abstracts(tmp_path / "b.txt", texts[3:])
    settings = settings_for(tmp_path / "store")
    run_ingest(settings, [first, second])
    Store.open(settings).lists.add("to read", list(Store.open(settings).papers().values())[:1])
    changed = settings.model_copy(update={"chunk": ChunkSettings(max_tokens=60)})
    report = run_ingest(changed, [second], rebuild=True)
    assert (report.papers, report.removed) == (4, 0)
    bot = Paperbot(changed)
    assert bot.search("counting penguins from drones").hits[0].paper.label == "PenguinCount"
    assert all(bot.store.corpus().vectors.has_vectors)  # every paper, of both files, embedded again
    kept = Store.open(changed)
    (entry,) = kept.lists.entries("to read")
    assert entry[0] in kept.papers()


def test_a_rebuild_stopped_part_way_loses_nothing_and_the_next_ingest_finishes_it(
    tmp_path, settings_for, write_abstracts, small_abstracts, run_ingest, monkeypatch
):
    corpus = write_abstracts(tmp_path / "a.txt", list(small_abstracts.values()))
    settings = settings_for(tmp_path / "store", storage={"embed_window": 1, "write_batch": 1})
    run_ingest(settings, [corpus])
    changed = settings.model_copy(update={"chunk": ChunkSettings(max_tokens=60)})
    written = ingest.pipeline.Store.write_papers
    calls = []

    def stop_after_one(self, *args, **kwargs):
        if calls:
            raise KeyboardInterrupt
        calls.append(1)
        return written(self, *args, **kwargs)

    monkeypatch.setattr(ingest.pipeline.Store, "write_papers", stop_after_one)
    with pytest.raises(KeyboardInterrupt):
        run_ingest(changed, [corpus], rebuild=True)
    monkeypatch.undo()
    assert len(Store.open(changed).papers()) == 4
    report = run_ingest(changed, [corpus])
    assert report.papers == 4 and any("re-embedded 3 papers" in w for w in report.warnings)
    assert all(Paperbot(changed).store.corpus().vectors.has_vectors)


def test_a_rebuild_with_a_model_that_cannot_load_drops_nothing(
    tmp_path, settings_for, write_abstracts, small_abstracts, run_ingest
):
    corpus = write_abstracts(tmp_path / "a.txt", list(small_abstracts.values()))
    settings = settings_for(tmp_path / "store")
    run_ingest(settings, [corpus])
    broken = settings.model_copy(update={"embed": EmbedSettings(model=str(tmp_path / "no-such-model"))})
    with pytest.raises(ModelError):
        run_ingest(broken, [corpus], rebuild=True)
    assert Paperbot(settings).search("counting penguins from drones").hits[0].paper.label == "PenguinCount"
    assert all(Paperbot(settings).store.corpus().vectors.has_vectors)
