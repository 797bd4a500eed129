"""MiniLM's forward pass in numpy, for questions and answer sentences: the same float32 vectors as
sentence-transformers gives, without importing torch (about 4 s of a cold `paperbot search` and a
few hundred MB of a reader's memory).

The one owner of `tokenizers` and `safetensors`. Reads a BERT sentence-transformers folder (a
Transformer, mean pooling, Normalize; weights in model.safetensors, a tokenizer.json); any other
model is refused here with None from `load`, and bot.embedder then uses sentence-transformers.
It embeds what it is given; it does not chunk, cache or store.
"""

from __future__ import annotations

import json
import logging
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

_MODULES = [
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
]


class NumpyBert:
    """A BERT encoder with mean pooling and unit-length output, run by numpy."""

    def __init__(self, folder: Path, max_word_pieces: int, batch_size: int) -> None:
        from tokenizers import Tokenizer

        self.folder = folder
        config = json.loads((folder / "config.json").read_text())
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.dimension = int(config["hidden_size"])
        limit = json.loads((folder / "sentence_bert_config.json").read_text()).get("max_seq_length") or max_word_pieces
        self.max_length = min(int(limit), max_word_pieces, int(config["max_position_embeddings"]))
        self.batch_size = batch_size
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(self.max_length)

    @cached_property
    def w(self) -> dict[str, np.ndarray]:
        """The model's weights, read on the first embedding (an ingest that only counts word pieces
        never reads them)."""
        from safetensors.numpy import load_file

        weights = {k.removeprefix("bert."): v for k, v in load_file(str(self.folder / "model.safetensors")).items()}
        # Dense weights stored transposed and contiguous: numpy's matrix product over a transposed
        # view of a stack of sequences takes a slow path (64 sentences: 17 s against 0.1 s).
        out = {k: np.ascontiguousarray(v.T) if _is_dense(k) else v for k, v in weights.items()}
        # Each layer's query, key and value weights side by side: one matrix product for the three.
        for layer in range(self.layers):
            name = f"encoder.layer.{layer}.attention.self."
            for part in ("weight", "bias"):
                out[f"{name}qkv.{part}"] = np.concatenate([out.pop(f"{name}{h}.{part}") for h in _QKV], axis=-1)
        return out

    @cached_property
    def _counter(self) -> Any:
        """A second tokenizer, without truncation, to count word pieces: changing the shared one's
        truncation would let a text embedded meanwhile in another thread (the chat) pass the limit."""
        from tokenizers import Tokenizer

        counter = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
        counter.no_padding()
        counter.no_truncation()
        return counter

    def word_pieces(self, text: str) -> int:
        """Number of word pieces in `text`, [CLS] and [SEP] included, before truncation."""
        return len(self._counter.encode(text).ids)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text; texts of about the same length attend in
        groups of up to `batch_size`, and groups run together until a run holds _ROWS word pieces (at
        most _ROWS - 1 + batch_size x the model's limit)."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        encoded = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i].ids))
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        groups = [order[first : first + self.batch_size] for first in range(0, len(order), self.batch_size)]
        for run in _runs(groups, [len(e.ids) for e in encoded]):
            rows = [i for group in run for i in group]
            out[rows] = self._forward([[encoded[i].ids for i in group] for group in run])
        return out

    def _forward(self, groups: list[list[list[int]]]) -> np.ndarray:
        """The vectors of these texts (word pieces), group after group. Their word pieces run packed,
        one row each, through every step but attention (no row of padding is multiplied: a short
        sentence beside a long one costs its own length, and the matrix products are as large as all
        the groups' pieces), and are laid out one text a row, padded, a group at a time, only to attend."""
        pieces = [p for group in groups for p in group]
        lengths = np.array([len(p) for p in pieces])
        ids = np.fromiter((i for p in pieces for i in p), dtype=np.int64, count=int(lengths.sum()))
        positions = np.concatenate([np.arange(n) for n in lengths])
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][positions]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        layouts, first = [], 0
        for group in groups:
            rows = sum(len(p) for p in group)
            layouts.append(_Layout.of([len(p) for p in group], first, positions[first : first + rows]))
            first += rows
        for layer in range(self.layers):
            x = self._layer(x, layouts, f"encoder.layer.{layer}.")
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        mean = np.add.reduceat(x, starts, axis=0) / lengths[:, None].astype(np.float32)
        return (mean / np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), 1e-12)).astype(np.float32)

    def _layer(self, x: np.ndarray, layouts: list[_Layout], name: str) -> np.ndarray:
        # query, key and value of every word piece in one matrix product (their weights side by side, see `w`)
        mixed = self._dense(x, f"{name}attention.self.qkv")
        context = np.empty_like(x)
        for layout in layouts:
            rows = slice(layout.first, layout.first + len(layout.slots))
            context[rows] = self._attend(mixed[rows], layout)
        x = self._norm(x + self._dense(context, f"{name}attention.output.dense"), f"{name}attention.output.LayerNorm")
        hidden = _gelu(self._dense(x, f"{name}intermediate.dense"))
        return self._norm(x + self._dense(hidden, f"{name}output.dense"), f"{name}output.LayerNorm")

    def _attend(self, mixed: np.ndarray, layout: _Layout) -> np.ndarray:
        """One group's attention: its packed query, key and value rows -> its packed context rows."""
        width = mixed.shape[-1] // 3
        size = width // self.heads
        padded = layout.pad(mixed).reshape(layout.texts, layout.longest, 3, self.heads, size).transpose(2, 0, 3, 1, 4)
        query, value = np.ascontiguousarray(padded[0]), np.ascontiguousarray(padded[2])
        keys = np.ascontiguousarray(padded[1].transpose(0, 1, 3, 2))
        scores = np.matmul(query, keys)
        np.divide(scores, np.float32(np.sqrt(size)), out=scores)
        np.add(scores, layout.blocked, out=scores)
        np.subtract(scores, scores.max(axis=-1, keepdims=True), out=scores)
        np.exp(scores, out=scores)
        np.divide(scores, scores.sum(axis=-1, keepdims=True), out=scores)
        return layout.pack((scores @ value).transpose(0, 2, 1, 3).reshape(-1, width))

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        weight = self.w[f"{name}.weight"]  # (inputs, outputs), see `w`
        flat = np.matmul(x.reshape(-1, x.shape[-1]), weight)
        np.add(flat, self.w[f"{name}.bias"], out=flat)
        return flat.reshape(*x.shape[:-1], weight.shape[1])

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        """Layer norm; its steps in place on one array (`x` itself is left as it was)."""
        centred = x - x.mean(axis=-1, keepdims=True)
        var = np.square(centred).mean(axis=-1, keepdims=True)
        np.divide(centred, np.sqrt(var + self.eps), out=centred)
        np.multiply(centred, self.w[f"{name}.weight"], out=centred)
        return np.add(centred, self.w[f"{name}.bias"], out=centred)


class _Layout:
    """One group's packed word pieces (one row each, text after text, from row `first` of the whole
    run) and the padded layout attention needs."""

    def __init__(self, texts: int, longest: int, slots: np.ndarray, first: int, blocked: np.ndarray) -> None:
        self.texts, self.longest, self.slots, self.first, self.blocked = texts, longest, slots, first, blocked

    @classmethod
    def of(cls, lengths: list[int], first: int, positions: np.ndarray) -> _Layout:
        """The layout of texts of these lengths (word pieces), packed from row `first`; `positions`
        gives each of their rows its place in its text."""
        sizes = np.array(lengths)
        longest = int(sizes.max())
        # where each packed row sits in the padded (texts x longest) layout
        slots = np.repeat(np.arange(len(sizes)) * longest, sizes) + positions
        # Padding gets no attention: the most negative float32, as transformers masks it.
        mask = np.arange(longest)[None, :] >= sizes[:, None]
        blocked = (mask * np.finfo(np.float32).min).astype(np.float32)[:, None, None, :]
        return cls(len(sizes), longest, slots, first, blocked)

    def pad(self, rows: np.ndarray) -> np.ndarray:
        """(pieces, width) -> (texts * longest, width), zeros where a text is shorter than the longest."""
        out = np.zeros((self.texts * self.longest, rows.shape[-1]), dtype=rows.dtype)
        out[self.slots] = rows
        return out

    def pack(self, padded: np.ndarray) -> np.ndarray:
        """(texts * longest, width) -> (pieces, width): the rows `pad` filled."""
        return padded[self.slots]


_QKV = ("query", "key", "value")
_ROWS = 2048  # word pieces after which a run of groups ends (their matrix products run together)


def _runs(groups: list[list[int]], lengths: list[int]) -> list[list[list[int]]]:
    """Consecutive groups of texts (their indices) gathered into runs of at least _ROWS word pieces
    (the last run may be shorter). Example: _runs([[0], [1], [2]], [1500, 600, 9]) -> [[[0], [1]], [[2]]]"""
    runs: list[list[list[int]]] = [[]]
    size = 0
    for group in groups:
        if size >= _ROWS:
            runs.append([])
            size = 0
        runs[-1].append(group)
        size += sum(lengths[i] for i in group)
    return runs


def _is_dense(name: str) -> bool:
    return name.endswith(("dense.weight", "query.weight", "key.weight", "value.weight"))


_GELU_BLOCK = 64  # rows of the (word pieces, 1536) hidden layer per step of _gelu; 32 to 128 all do about as well

# erf(x) ~ x * P(x^2) / Q(x^2) on [-4, 4] (beyond it erf is 1 to float32's precision): the
# float32 rational approximation Eigen uses, within 5e-7 of the exact erf (tests/bot/test_encoder.py)
# and about three times as fast as scipy's, which took a third of the time of embedding sentences.
_ERF_P = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06, -5.69250639462346e-05,
          -7.34990630326855e-04, -2.95459980854025e-03, -1.60960333262415e-02)  # fmt: skip
_ERF_Q = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03, -7.37332916720468e-03,
          -1.42647390514189e-02)  # fmt: skip


def erf(x: np.ndarray) -> np.ndarray:
    """The error function of a float32 array, elementwise. Example: erf(np.float32([0, 1])) -> [0., 0.8427008]"""
    return _erf(np.clip(np.asarray(x, dtype=np.float32), -4.0, 4.0))


def _erf(z: np.ndarray) -> np.ndarray:
    """erf of float32 values already within [-4, 4], in a new array; its steps taken in place."""
    square = z * z
    p, q = np.full_like(z, _ERF_P[0]), np.full_like(z, _ERF_Q[0])
    for poly, coefficients in ((p, _ERF_P), (q, _ERF_Q)):
        for c in coefficients[1:]:
            np.multiply(poly, square, out=poly)
            np.add(poly, np.float32(c), out=poly)
    np.multiply(z, p, out=p)
    return np.divide(p, q, out=p)


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x * Phi(x) = x * (1 + erf(x / sqrt 2)) / 2, on blocks of _GELU_BLOCK rows
    whose few temporaries stay in the core's cache: faster than whole-array steps, the same bits."""
    out = np.empty_like(x)
    root = np.float32(np.sqrt(2.0))
    for start in range(0, len(x), _GELU_BLOCK):
        rows, done = x[start : start + _GELU_BLOCK], out[start : start + _GELU_BLOCK]
        phi = _erf(np.clip(np.divide(rows, root), -4.0, 4.0))
        np.add(phi, np.float32(1.0), out=phi)
        np.multiply(rows, phi, out=done)
        np.multiply(done, np.float32(0.5), out=done)
    return out


def load(folder: Path, max_word_pieces: int, batch_size: int) -> NumpyBert | None:
    """The numpy encoder for a sentence-transformers folder, or None when the model is not a BERT
    with mean pooling and Normalize stored as safetensors (sentence-transformers then runs it)."""
    try:
        modules = [m.get("type") for m in json.loads((folder / "modules.json").read_text())]
        pooling: dict[str, Any] = json.loads((folder / "1_Pooling" / "config.json").read_text())
        config = json.loads((folder / "config.json").read_text())
    except (OSError, ValueError, AttributeError):
        return None
    mean_only = pooling.get("pooling_mode_mean_tokens") and not any(
        v for k, v in pooling.items() if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens"
    )
    files = all(
        (folder / name).is_file() for name in ("model.safetensors", "tokenizer.json", "sentence_bert_config.json")
    )
    if modules != _MODULES or not mean_only or config.get("model_type") != "bert" or not files:
        log.info(
            "%s is not a BERT with mean pooling in safetensors: questions go through sentence-transformers", folder
        )
        return None
    if config.get("position_embedding_type", "absolute") != "absolute" or config.get("hidden_act") != "gelu":
        return None
    return NumpyBert(folder, max_word_pieces, batch_size)
