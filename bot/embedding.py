"""Vectors of recently embedded texts, remembered for the questions and answers that ask again.

Composing and then checking an answer embeds the same abstract sentences, and a chat keeps
returning to the same papers, so the last `EmbedSettings.cache_size` texts keep their vectors
(cachetools' LRUCache behind a lock: the chat server answers on several threads). A text the store
keeps a vector for (`ingest --sentences`, bot.store.sentences) is read from there instead of embedded.
It does not load or run the model (bot.embedder does); ingest embeds through `fresh` and `exact`,
past the cache.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

import numpy as np
from cachetools import LRUCache

from bot import embedder
from bot.settings import EmbedSettings
from bot.settings.stored import Precision


class Kept(Protocol):
    """Vectors kept between processes (bot.store.sentences.SentenceVectors)."""

    def find(self, texts: Sequence[str]) -> dict[str, np.ndarray]: ...


class CachedEmbedder:
    """The configured model (loaded on first use, once per process) with a cache of recent vectors and,
    when given, the sentence vectors a store keeps (`kept`, bot.store.sentences): texts found there are
    not embedded either.

    Example: CachedEmbedder(EmbedSettings()).embed(["safe RL", "safe RL"]) -> array of shape (2, 384),
    the model run once
    """

    def __init__(self, settings: EmbedSettings, kept: Kept | None = None) -> None:
        self._settings = settings
        self._kept = kept
        self._recent: LRUCache[str, np.ndarray] = LRUCache(maxsize=settings.cache_size)
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length vectors for `texts`, one row each; texts seen recently, or kept, are not embedded again."""
        model = embedder.load(self._settings)
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._recent]
        if missing and self._kept is not None:
            found = {t: v for t, v in self._kept.find(missing).items() if v.shape == (model.dimension,)}
            if found:
                with self._lock:
                    self._recent.update(found)
                missing = [t for t in missing if t not in found]
        if not missing:
            if not texts:
                return model.embed([])
        else:
            fresh = model.embed(missing)
            with self._lock:
                self._recent.update(zip(missing, fresh, strict=True))
        with self._lock:
            known = [self._recent.get(t) for t in texts]
        if any(v is None for v in known):  # evicted meanwhile by a very large batch
            return model.embed(texts)
        return np.stack([v for v in known if v is not None])

    def exact(self, texts: list[str]) -> np.ndarray:
        """Vectors straight from the model in float32, as answers embed, kept out of the cache: for
        `ingest --sentences`, which keeps every abstract sentence's vector in the store instead."""
        return embedder.load(self._settings).embed(texts)

    def fresh(self, texts: list[str], precision: Precision | None = None) -> np.ndarray:
        """Vectors straight from the model in `precision` (default: the settings'), kept out of the cache:
        for ingest, whose thousands of chunks would only churn through it."""
        return embedder.load(self._settings).embed_bulk(texts, precision)

    def faster_precision(self) -> Precision:
        """The precision this machine embeds faster in, for a new store (bot.embedder.Embedder.faster_precision)."""
        return embedder.load(self._settings).faster_precision()
