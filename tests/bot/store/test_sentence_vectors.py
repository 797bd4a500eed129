"""Kept sentence vectors (bot.store.sentences): found by text, one table per model, a cache that never fails."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bot.settings import EmbedSettings
from bot.store.sentences import SentenceVectors, sentence_table


def _vectors(n: int, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, 8)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_a_kept_vector_is_found_by_its_text_bit_for_bit(tmp_path: Path) -> None:
    kept = SentenceVectors(tmp_path / "s.sqlite", "vectors_a")
    texts = ["We propose X.", "X wins by 5%.", "Résumé: ∑ 𝔼[L] ≤ α\u202e"]
    vectors = _vectors(3)
    kept.add(texts, vectors)
    found = kept.find([*texts, "never kept"])
    assert set(found) == set(texts)
    for text, row in zip(texts, vectors, strict=True):
        assert found[text].tobytes() == row.tobytes()
    assert kept.missing(["X wins by 5%.", "new", "new"]) == ["new"]
    assert kept.count() == 3
    kept.add(texts[:1], _vectors(1, seed=1))  # kept again: replaced, not doubled
    assert kept.count() == 3
    assert np.array_equal(kept.find(texts[:1])[texts[0]], _vectors(1, seed=1)[0])
    kept.close()
    # another process (a new object) reads what this one kept
    assert set(SentenceVectors(tmp_path / "s.sqlite", "vectors_a").find(texts)) == set(texts)


def test_another_model_never_reads_them(tmp_path: Path) -> None:
    mini, other = EmbedSettings(), EmbedSettings(model="some/other-model")
    assert sentence_table(mini) != sentence_table(other)
    assert sentence_table(mini) == sentence_table(EmbedSettings(precision="bfloat16"))  # answers embed in float32
    SentenceVectors(tmp_path / "s.sqlite", sentence_table(mini)).add(["a sentence"], _vectors(1))
    assert SentenceVectors(tmp_path / "s.sqlite", sentence_table(other)).find(["a sentence"]) == {}


def test_no_file_or_a_broken_one_finds_nothing_and_creates_nothing(tmp_path: Path) -> None:
    absent = SentenceVectors(tmp_path / "none.sqlite", "vectors_a")
    assert absent.find(["x"]) == {} and absent.missing(["x"]) == ["x"] and absent.count() == 0
    assert not (tmp_path / "none.sqlite").exists()  # a reader does not create the cache
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"not a database at all" * 100)
    assert SentenceVectors(broken, "vectors_a").find(["x"]) == {}


def test_a_writer_starts_a_broken_file_again(tmp_path: Path) -> None:
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"not a database at all" * 100)
    kept = SentenceVectors(broken, "vectors_a")
    kept.add(["a sentence"], _vectors(1))
    assert kept.count() == 1 and set(kept.find(["a sentence"])) == {"a sentence"}
