"""The cache of recent vectors: texts embedded once, the least recently used forgotten first, and
ingest's vectors kept out of it. A counting stand-in for the model shows what reaches it; the real
model's vectors through the cache are tested wherever answers are (seeded_bot.embed)."""

from __future__ import annotations

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
    assert model.batches == [["a", "a"], ["a"]]
