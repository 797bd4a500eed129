"""MiniLM run by numpy (bot/encoder.py) gives sentence-transformers' vectors without torch: the same
float32 vectors for questions, sentences and long abstracts, whatever their batch; models it cannot
run go through sentence-transformers; and a cold `paperbot search` imports neither torch nor
chromadb (issue 18)."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bot import encoder
from bot.embedder import Embedder, model_path
from bot.settings import EmbedSettings, Settings

TEXTS = [
    "What is off-policy evaluation?",
    "x",
    "Graph neural networks over-smooth as they grow deeper; we add a residual gate. " * 2,
    "A long abstract, longer than the model reads: " + "tokens of a long abstract " * 120,
    "Ünïcödé, LaTeX $\\alpha$ and **markdown** in one line.",
]


@pytest.fixture(scope="module")
def numpy_and_torch() -> tuple[Embedder, Embedder]:
    return Embedder(EmbedSettings()), Embedder(EmbedSettings(engine="torch"))


def test_numpy_gives_the_vectors_sentence_transformers_gives(numpy_and_torch: tuple[Embedder, Embedder]) -> None:
    fast, reference = numpy_and_torch
    assert fast._numpy is not None and reference._numpy is None
    ours, theirs = fast.embed(TEXTS), reference.embed(TEXTS)
    assert ours.dtype == np.float32 and ours.shape == theirs.shape == (len(TEXTS), 384)
    assert np.abs(ours - theirs).max() < 1e-5
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-6)
    # One text alone or beside longer ones: padding is masked out.
    assert np.abs(fast.embed(TEXTS[:1]) - ours[:1]).max() < 1e-6
    assert [fast.word_pieces(t) for t in TEXTS] == [reference.word_pieces(t) for t in TEXTS]
    assert fast.embed([]).shape == (0, 384)


def test_texts_packed_together_get_the_vectors_each_gets_alone(numpy_and_torch: tuple[Embedder, Embedder]) -> None:
    """Word pieces of texts of every length run packed (bot.encoder._Layout): no text's vector depends
    on the others in its call, in one batch or split over several."""
    fast, _ = numpy_and_torch
    assert fast._numpy is not None
    alone = np.stack([fast.embed([t])[0] for t in TEXTS])
    together = fast.embed(TEXTS[::-1])[::-1]
    split = encoder.NumpyBert(fast.path, 256, batch_size=2).embed(TEXTS)
    assert np.abs(together - alone).max() < 1e-6 and np.abs(split - alone).max() < 1e-6


def test_groups_that_attend_apart_share_matrix_products(
    numpy_and_torch: tuple[Embedder, Embedder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Texts attend in groups of batch_size, and groups run their matrix products together up to
    _ROWS word pieces (bot.encoder._runs): one run of three groups, or a run a group, gives each text
    its vector alone."""
    fast, _ = numpy_and_torch
    alone = np.stack([fast.embed([t])[0] for t in TEXTS])
    three = encoder.NumpyBert(fast.path, 256, batch_size=2)
    assert [len(run) for run in encoder._runs([[0, 1], [2, 3], [4]], [9, 3, 40, 256, 20])] == [3]
    assert np.abs(three.embed(TEXTS) - alone).max() < 1e-6
    monkeypatch.setattr(encoder, "_ROWS", 8)
    assert [len(run) for run in encoder._runs([[0, 1], [2, 3], [4]], [9, 3, 40, 256, 20])] == [1, 1, 1]
    assert np.abs(three.embed(TEXTS) - alone).max() < 1e-6


def test_erf_is_the_error_function_to_float32_precision() -> None:
    grid = np.linspace(-9, 9, 36_001, dtype=np.float32)
    exact = np.array([math.erf(float(v)) for v in grid])
    assert np.abs(encoder.erf(grid) - exact).max() < 5e-7
    assert encoder.erf(grid).dtype == np.float32


def test_a_model_it_cannot_run_goes_through_sentence_transformers(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(model_path("bundled:all-MiniLM-L6-v2"), folder)
    pooling = folder / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    pooling.write_text(json.dumps(config | {"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}))
    assert encoder.load(folder, 256, 16) is None
    embedder = Embedder(EmbedSettings(model=str(folder)))
    assert embedder._numpy is None and embedder.embed(["a question"]).shape == (1, 384)


def test_a_cold_search_imports_neither_torch_nor_chromadb(store_copy: Settings) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")} | {"HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-X", "importtime", "-m", "bot", "--store", store_copy.store]
    command += ["search", "off-policy evaluation", "--json"]
    imported: set[str] = set()
    for _ in range(2):  # the first reader of a fresh store reads its vectors from Chroma and caches them
        run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        assert run.returncode == 0, run.stderr[-2000:]
        assert json.loads(run.stdout)["results"], run.stdout
        imported = {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if "import time" in line}
    assert "bot.encoder" in imported
    assert not {"torch", "sentence_transformers", "transformers", "chromadb", "gradio"} & imported
