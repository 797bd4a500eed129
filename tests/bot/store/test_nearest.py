"""Search through Chroma's own index (bot.store.nearest, dense_index 'approximate'), against the exact path.

Uses private copies of the seeded store: on 53 papers the approximate path is forced by the setting.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bot.app import Paperbot
from bot.settings import Settings
from bot.store.corpus import PaperVectors
from bot.store.nearest import NearestVectors, top_indices
from bot.store.vectors import VectorCache

DATA = Path(__file__).resolve().parents[2] / "data"


def _questions(n: int) -> list[str]:
    lines = (DATA / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()][:n]


def _bot(seeded_store: Settings, tmp_path: Path, settings_for: Callable[..., Settings], **storage: object) -> Paperbot:
    target = tmp_path / "store"
    shutil.copytree(seeded_store.store, target)
    return Paperbot(settings_for(target, storage=seeded_store.storage.model_copy(update=storage)))


def _ids(bot: Paperbot, question: str) -> list[str]:
    return [h.paper.paper_id for h in bot.search(question, k=10).hits]


# Candidates from Chroma's chunk index (as a server's store is searched), or from its index of paper
# records with the chunk vectors read from the cache beside an embedded store.
BY_CHUNK = {"approximate_papers": 0}
BY_PAPER: dict[str, int] = {}


@pytest.mark.parametrize("index", [BY_CHUNK, BY_PAPER], ids=["chunk index", "paper index"])
def test_with_every_paper_a_candidate_the_approximate_path_ranks_as_the_exact_one(
    seeded_bot: Paperbot,
    seeded_store: Settings,
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    index: dict[str, int],
) -> None:
    bot = _bot(seeded_store, tmp_path, settings_for, dense_index="approximate", approximate_chunks=10_000, **index)
    assert isinstance(bot.store.corpus().vectors, NearestVectors)
    assert (bot.store.corpus().vectors._cached is None) == (index is BY_CHUNK)
    assert isinstance(seeded_bot.store.corpus().vectors, PaperVectors)  # 'auto' below approximate_from
    for question in [*_questions(12), "What is the best recipe for sourdough bread?"]:
        exact, near = seeded_bot.search(question, k=10), bot.search(question, k=10)
        assert [h.paper.paper_id for h in near.hits] == [h.paper.paper_id for h in exact.hits], question
        assert [h.dense for h in near.hits] == pytest.approx([h.dense for h in exact.hits], abs=1e-4)
        assert near.abstained == exact.abstained, question


@pytest.mark.parametrize(
    "index", [BY_CHUNK | {"approximate_chunks": 10}, {"approximate_papers": 4}], ids=["chunk index", "paper index"]
)
def test_few_candidates_still_find_the_exact_top_papers_without_reading_every_vector(
    seeded_bot: Paperbot,
    seeded_store: Settings,
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    index: dict[str, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bot = _bot(seeded_store, tmp_path, settings_for, dense_index="approximate", **index)
    if "approximate_papers" in index and index["approximate_papers"] > 0:
        # The chunk index is never asked: an embedded store would load it whole (4 GB at a million papers).
        monkeypatch.setattr(bot.store.vectors, "query", lambda *a, **k: pytest.fail("queried the chunk index"))
    questions = _questions(20)
    missed = sum(paper not in _ids(bot, q)[:10] for q in questions for paper in _ids(seeded_bot, q)[:3])
    assert missed <= 2, f"{missed} of {3 * len(questions)} exact top-3 papers outside the approximate top 10"
    answer = bot.ask(questions[0], generator="extractive")
    assert answer.citations
    vectors = bot.store.corpus().vectors
    assert isinstance(vectors, NearestVectors) and vectors._all is None  # search and ask never read them all
    # "More like this" needs every vector: they are read then, once.
    similar = bot.similar(ref=_ids(bot, questions[0])[0], k=3)
    assert len(similar.papers) == 3 and vectors._all is not None


@pytest.mark.parametrize(
    "index", [BY_CHUNK | {"approximate_chunks": 5}, {"approximate_papers": 5}], ids=["chunk index", "paper index"]
)
def test_the_relevance_cut_counts_only_papers_scored_exactly(
    seeded_bot: Paperbot,
    seeded_store: Settings,
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    index: dict[str, int],
) -> None:
    # The papers outside the candidates share one bound, not a score: cut on it, that mass of papers
    # was all "relevant" (at 100,000 papers, every paper for "which papers use deep Q-learning?").
    bot = _bot(seeded_store, tmp_path, settings_for, dense_index="approximate", approximate_lexical=2, **index)
    for topic in ("reinforcement learning", "policy optimization for language models", "benchmarks for agents"):
        (near,) = bot.searcher.relevant([topic])
        (exact,) = seeded_bot.searcher.relevant([topic])
        assert 0 < len(near.scores) <= 5 + 2, (topic, len(near.scores))
        assert set(near.scores) & set(exact.scores), topic  # the best of them are the exact path's too
        triaged = bot.triage(topic)
        assert {p.paper.paper_id for p in triaged.papers} == set(near.scores)


def test_an_ingest_reads_no_vectors_for_readers_that_search_through_chromas_index_but_updates_their_cache(
    seeded_store: Settings,
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    write_abstracts: Callable[..., Path],
    small_abstracts: dict[str, str],
    run_ingest: Callable[..., Any],
) -> None:
    # The ingest does not read every vector for those readers: at a million papers that would load
    # Chroma's chunk index (4 GB) into a process that holds the ingest's memory too.
    bot = _bot(seeded_store, tmp_path, settings_for, dense_index="approximate")
    for cache in bot.store.paths.vector_caches():
        cache.unlink()  # no cache of the version before to update
    assert run_ingest(bot, [write_abstracts(tmp_path / "one.txt", [small_abstracts["PenguinCount"]])]).added == 1
    version = bot.store.registry.version()
    assert VectorCache.find(bot.store.paths.folder, version, bot.store.fingerprint) is None
    # Searching through the chunk index needs no cache: that reader does not read every vector.
    by_chunk = Paperbot(settings_for(bot.store.paths.folder, storage=bot.settings.storage.model_copy(update=BY_CHUNK)))
    assert by_chunk.search("counting penguins in drone images", k=1).hits[0].paper.label == "PenguinCount"
    assert VectorCache.find(bot.store.paths.folder, version, bot.store.fingerprint) is None
    # Through the papers' index the first reader reads them, to keep the cache it reads candidates from.
    assert [p.paper.label for p in bot.triage("counting penguins in drone images").papers] == ["PenguinCount"]
    assert VectorCache.find(bot.store.paths.folder, version, bot.store.fingerprint) is not None
    # With that cache, the next ingest updates it: the new version's cache holds the new paper's rows.
    assert run_ingest(bot, [write_abstracts(tmp_path / "two.txt", [small_abstracts["QuillNet"]])]).added == 1
    version = bot.store.registry.version()
    assert VectorCache.find(bot.store.paths.folder, version, bot.store.fingerprint) == bot.store.vectors.count()
    assert [p.paper.label for p in bot.triage("restoring medieval manuscripts").papers] == ["QuillNet"]


def test_top_indices_are_what_a_stable_sort_gives_ties_included() -> None:
    rng = np.random.default_rng(7)
    for size, n in [(1000, 10), (1000, 999), (50, 50), (50, 80), (7, 0)]:
        scores = rng.integers(0, 20, size).astype(np.float64)  # many ties, at the cut too
        scores[::17] = -np.inf  # papers filtered out
        assert top_indices(scores, n).tolist() == np.argsort(-scores, kind="stable")[:n].tolist(), (size, n)
