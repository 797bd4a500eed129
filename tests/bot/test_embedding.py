"""The cache of recent vectors: texts embedded once, the least recently used forgotten first, and
ingest's vectors kept out of it. A counting stand-in for the model shows what reaches it; the real
model's vectors through the cache are tested wherever answers are (seeded_bot.embed)."""

from __future__ import annotations

import logging
import re

import numpy as np
import pytest

from bot import embedding
from bot.settings import EmbedSettings


class CountingModel:
    """Two-dimensional 'vectors' from the text's length, and every batch the cache passes on."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32).reshape(len(texts), 2)

    def embed_bulk(self, texts: list[str], precision: str | None = None) -> np.ndarray:
        self.batches.append([f"bulk{'' if precision is None else ' ' + precision}:", *texts])
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32).reshape(len(texts), 2)


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> CountingModel:
    fake = CountingModel()
    monkeypatch.setattr(embedding.embedder, "load", lambda settings: fake)
    return fake


def test_texts_are_embedded_once_and_returned_in_order(model: CountingModel) -> None:
    cached = embedding.CachedEmbedder(EmbedSettings())
    first = cached.embed(["a", "bb", "a"])
    assert model.batches == [["a", "bb"]]  # duplicates embedded once
    assert first[:, 0].tolist() == [1, 2, 1]
    again = cached.embed(["bb", "ccc"])
    assert model.batches[-1] == ["ccc"] and again[:, 0].tolist() == [2, 3]
    assert cached.embed([]).shape == (0, 2)


def test_the_least_recently_used_text_is_forgotten_first(model: CountingModel) -> None:
    cached = embedding.CachedEmbedder(EmbedSettings(cache_size=2))
    cached.embed(["a", "bb"])
    cached.embed(["a"])  # "a" used again: "bb" is now the older one
    cached.embed(["ccc"])
    model.batches.clear()
    cached.embed(["a", "bb", "ccc"])
    assert model.batches[0] == ["bb"]


def test_ingest_embeds_past_the_cache(model: CountingModel) -> None:
    cached = embedding.CachedEmbedder(EmbedSettings())
    cached.fresh(["a", "a"])
    cached.embed(["a"])
    assert model.batches == [["bulk:", "a", "a"], ["a"]]  # ingest in the store's precision, questions in float32


def test_bfloat16_is_for_ingest_and_questions_score_the_same_whatever_their_batch() -> None:
    from bot.embedder import Embedder

    model = Embedder(EmbedSettings(precision="bfloat16"))
    float32 = Embedder(EmbedSettings(precision="float32"))
    question = "How do diffusion models generate proteins?"
    longer = "Offline reinforcement learning with safety constraints learns policies from logged data alone. " * 3
    alone, batched = model.embed([question]), model.embed([question, longer])[:1]
    assert np.abs(alone - batched).max() < 1e-5  # float32: the batch does not move a question's vector
    bulk = model.embed_bulk([question, longer])
    assert np.abs(bulk - float32.embed([question, longer])).max() > 0  # computed otherwise...
    assert (bulk * float32.embed([question, longer])).sum(axis=1).min() > 0.9995  # ...to the same direction
    assert np.allclose(np.linalg.norm(bulk, axis=1), 1.0, atol=1e-5)
    assert model.embed_bulk([]).shape == (0, model.dimension)


def test_ingest_embeds_in_the_precision_it_is_given(model: CountingModel) -> None:
    embedding.CachedEmbedder(EmbedSettings(precision="bfloat16")).fresh(["a"], precision="float32")
    assert model.batches == [["bulk float32:", "a"]]


def test_auto_precision_takes_the_faster_of_float32_and_bfloat16_here(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The CPU's bfloat16 flag does not say bfloat16 is faster: one host with avx512_bf16 ran MiniLM 1.7x slower
    in it than in float32. Without the flag there is nothing to time; with it, both are timed on the real model."""
    from bot.embedder import _BFLOAT16_GAIN, Embedder
    from bot.settings import stored

    model = Embedder(EmbedSettings())
    monkeypatch.setattr(stored, "native_bfloat16", lambda: False)
    assert model.faster_precision() == "float32"
    assert model._model is None  # not even loaded
    monkeypatch.setattr(stored, "native_bfloat16", lambda: True)
    with caplog.at_level(logging.INFO, logger="bot.embedder"):
        choice = model.faster_precision()
    timed = [r.getMessage() for r in caplog.records if "a new store embeds in" in r.getMessage()]
    assert len(timed) == 1, caplog.text
    float32, bfloat16 = (float(x) for x in re.findall(r"([0-9.]+) s", timed[0]))
    assert 0 < float32 < 30 and 0 < bfloat16 < 30
    assert choice == ("bfloat16" if bfloat16 * _BFLOAT16_GAIN < float32 else "float32")
    assert timed[0].endswith(choice)
