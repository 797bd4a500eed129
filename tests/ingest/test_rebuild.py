"""Changing decisive settings: the old index is refused, and `ingest --rebuild` replaces it."""

import pytest

from bot.app import Paperbot
from bot.errors import FingerprintError
from bot.settings import ChunkSettings

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
    assert (report.papers, report.added) == (4, 4)
    assert Paperbot(changed).search("counting penguins from drones").hits[0].paper.label == "PenguinCount"
