"""Vectors of recently embedded texts, remembered for the questions and answers that ask again.

Composing and then checking an answer embeds the same abstract sentences, and a chat keeps
returning to the same papers, so the last `EmbedSettings.cache_size` texts keep their vectors
(cachetools' LRUCache behind a lock: the chat server answers on several threads). It does not load
or run the model (bot.embedder does); ingest embeds through `fresh`, past the cache.
"""

from __future__ import annotations

import threading

import numpy as np
from cachetools import LRUCache

from bot import embedder
from bot.settings import EmbedSettings


class CachedEmbedder:
    """The configured model (loaded on first use, once per process) with a cache of recent vectors.

    Example: CachedEmbedder(EmbedSettings()).embed(["safe RL", "safe RL"]) -> array of shape (2, 384),
    the model run once
    """

    def __init__(self, settings: EmbedSettings) -> None:
        self._settings = settings
        self._recent: LRUCache[str, np.ndarray] = LRUCache(maxsize=settings.cache_size)
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length vectors for `texts`, one row each; texts seen recently are not embedded again."""
        model = embedder.load(self._settings)
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._recent]
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

    def fresh(self, texts: list[str]) -> np.ndarray:
        """Vectors straight from the model in the store's precision (bfloat16 where the CPU has it),
        kept out of the cache: for ingest, whose thousands of chunks would only churn through it."""
        return embedder.load(self._settings).embed_bulk(texts)
