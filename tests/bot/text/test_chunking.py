"""ingest.chunking: chunks fit the embedder whole, keep all the text, and overlap as set."""

from __future__ import annotations

import itertools
import random

import pytest

from bot.embedder import Embedder, load
from bot.settings import ChunkSettings, EmbedSettings, Settings
from bot.store.registry import Registry
from bot.text import tokens
from bot.text.chunking import chunk_paper, chunk_texts, paper_chunks, parse_chunk_id

SETTINGS = ChunkSettings()


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return load(EmbedSettings())


def _huge_sentence(vocabulary: list[str], words: int = 2000, seed: int = 0) -> str:
    rng = random.Random(seed)
    body = " ".join(rng.choice(vocabulary).strip(".!?;:,") or "x" for _ in range(words))
    return f"{body}."


def test_chunk_ids_name_their_paper_and_position() -> None:
    (chunk,) = chunk_paper("p346e74853fce", "One sentence.", None, SETTINGS)
    assert parse_chunk_id(chunk.chunk_id) == ("p346e74853fce", 0)
    assert parse_chunk_id("p346e74853fce-12") == ("p346e74853fce", 12)
    assert parse_chunk_id("p346e74853fce") is None and parse_chunk_id("p3-x") is None


def test_short_abstract_is_one_chunk_equal_to_its_text() -> None:
    text = "We propose FooNet. It counts penguins. It runs on a laptop."
    assert chunk_texts(text, SETTINGS) == [text]


def test_chunks_are_runs_of_whole_sentences_sharing_one_sentence() -> None:
    sentences = [f"Sentence number {i} is about topic {i} at some length here." for i in range(30)]
    chunks = chunk_texts(" ".join(sentences), SETTINGS)
    assert len(chunks) > 2
    for chunk in chunks:
        assert tokens.count(chunk) <= SETTINGS.max_tokens
        assert chunk.endswith(".") and chunk.startswith("Sentence number")
    for before, after in itertools.pairwise(chunks):
        last = before.split(". ")[-1].rstrip(".")
        assert after.startswith(last)  # overlap_sentences=1: the last sentence is repeated
    assert chunks[0].startswith(sentences[0]) and chunks[-1].endswith(sentences[-1])


def test_title_leads_every_chunk_within_the_budget() -> None:
    text = " ".join(f"Claim {i} holds for every graph we tried in practice." for i in range(40))
    chunks = chunk_paper("p1", text, "A Title", SETTINGS)
    assert [c.chunk_id for c in chunks] == [f"p1-{i}" for i in range(len(chunks))]
    assert all(c.text.startswith("A Title. ") for c in chunks)
    assert all(tokens.count(c.text) <= SETTINGS.max_tokens for c in chunks)


def test_one_huge_sentence_is_cut_without_losing_text() -> None:
    text = _huge_sentence(["alpha", "beta-gamma", "convex", "regret", "GRPO", "0.95"])
    chunks = chunk_texts(text, SETTINGS)
    assert len(chunks) > 10
    assert all(tokens.count(c) <= SETTINGS.max_tokens for c in chunks)
    assert "".join(chunks).replace(" ", "") == text.replace(" ", "")


@pytest.mark.parametrize(
    "text",
    [
        "我们提出了一种新的方法用于图像分类并在多个数据集上取得了最好的结果鱻龘" * 20,
        " ".join(["χ-Bench ψ-Net ω-regret"] * 120),
    ],
    ids=["cjk", "greek"],
)
def test_cutting_non_ascii_never_splits_a_character(text: str) -> None:
    # Regression: a token limit inside a multi-byte character produced U+FFFD and lost a letter.
    chunks = chunk_texts(text, ChunkSettings(max_tokens=16))
    assert len(chunks) > 5
    assert not any("\ufffd" in c for c in chunks)
    assert "".join(chunks).replace(" ", "") == text.replace(" ", "")


@pytest.mark.slow
def test_no_seed_chunk_exceeds_the_embedders_word_pieces(seeded_store: Settings, embedder: Embedder) -> None:
    registry = Registry(seeded_store.store)
    papers = list(registry.papers().values())
    registry.close()
    assert len(papers) == 53
    limit = EmbedSettings().max_word_pieces
    counts = [embedder.word_pieces(chunk.text) for p in papers for chunk in paper_chunks(p, seeded_store.chunk)]
    assert len(counts) >= len(papers)
    assert max(counts) <= limit, f"{max(counts)} word pieces > {limit}"


@pytest.mark.slow
def test_huge_synthetic_abstract_fits_the_embedder(seeded_store: Settings, embedder: Embedder) -> None:
    registry = Registry(seeded_store.store)
    vocabulary = [w for p in registry.papers().values() for w in p.display.split()]
    registry.close()
    text = _huge_sentence(vocabulary)
    assert len(text.split()) == 2000
    chunks = chunk_paper("p1", text, "A long title about everything", SETTINGS)
    assert len(chunks) > 10
    assert max(embedder.word_pieces(c.text) for c in chunks) <= EmbedSettings().max_word_pieces


@pytest.mark.slow
def test_punctuation_runs_fit_the_embedder(embedder: Embedder) -> None:
    text = "Results are listed in a table. Accuracy" + "." * 400 + " 95%. Recall is 90%."
    assert max(embedder.word_pieces(c) for c in chunk_texts(text, SETTINGS)) <= 256
