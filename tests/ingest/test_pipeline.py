"""How ingest embeds and commits: windows embedded longest first, committed in small groups."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bot.app import Paperbot
from bot.errors import InputError
from bot.settings import EmbedSettings, Settings, StoreSettings
from ingest import pipeline
from ingest.pipeline import _embed_longest_first


def test_longest_first_embeds_similar_lengths_together_and_returns_input_order() -> None:
    texts = ["a" * 5, "b" * 90, "c" * 40, "d" * 88, "e" * 7]
    calls: list[list[str]] = []
    ticks: list[tuple[int, int]] = []

    def embed(batch: list[str]) -> np.ndarray:
        calls.append(batch)
        return np.array([[len(t), ord(t[0])] for t in batch], dtype=np.float32)

    vectors = _embed_longest_first(texts, embed, 2, lambda done, total: ticks.append((done, total)))
    assert [[len(t) for t in batch] for batch in calls] == [[90, 88], [40, 7], [5]]
    assert vectors.tolist() == [[len(t), ord(t[0])] for t in texts]  # each row is its own text's vector
    assert ticks == [(2, 5), (4, 5), (5, 5)]
    assert _embed_longest_first([], lambda batch: np.zeros((0, 3), dtype=np.float32), 2, lambda *_: None).shape == (
        0,
        3,
    )


@pytest.mark.slow
def test_windows_and_groups_change_no_vector_and_progress_never_goes_back(
    seeds_dir: Path,
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    run_ingest: Callable[..., Any],
) -> None:
    """Small windows and groups (3 and 2 papers) store the same vectors as the defaults, and the
    progress count rises to the total without ever going back. In float32: a bfloat16 vector moves
    by up to 7e-4 with the other texts of its batch (docs/performance.md)."""
    seed = sorted(seeds_dir.glob("*.txt"))[0]
    exact = EmbedSettings(precision="float32")
    default = Paperbot(settings_for(tmp_path / "default", embed=exact))
    run_ingest(default, [seed])
    small = settings_for(tmp_path / "small", storage=StoreSettings(embed_window=3, write_batch=2), embed=exact)
    seen: list[tuple[int, int]] = []
    bot = Paperbot(small)
    report = run_ingest(bot, [seed], progress=lambda done, total: seen.append((done, total)))
    assert report.added == report.papers > 6
    totals = {total for _, total in seen}
    assert totals == {report.papers}
    counts = [done for done, _ in seen]
    assert counts == sorted(counts) and counts[0] == 0 and counts[-1] == report.papers
    assert len(set(counts)) > report.papers // 3  # it moves while windows embed, not only at the end
    expected, got = default.store.vectors.all_vectors(), bot.store.vectors.all_vectors()
    assert sorted(expected.chunk_ids) == sorted(got.chunk_ids)
    rows = {cid: i for i, cid in enumerate(got.chunk_ids)}
    order = [rows[cid] for cid in expected.chunk_ids]
    assert np.allclose(expected.matrix, got.matrix[order], atol=1e-5)


@pytest.mark.slow
def test_chunk_texts_are_cut_again_exactly_as_ingest_embedded_them(seeded_bot: Paperbot) -> None:
    """Chroma keeps no chunk text; the chunks cut again from the registry embed to the stored vectors."""
    stored = seeded_bot.store.vectors.all_vectors()
    texts = seeded_bot.chunk_texts([*stored.chunk_ids, "nosuchpaper-0", f"{stored.paper_ids[0]}-999"])
    assert sorted(texts) == sorted(stored.chunk_ids)  # every stored chunk, and no unknown one
    sample = list(stored.chunk_ids[::7])
    vectors = seeded_bot.embed([texts[cid] for cid in sample])
    rows = [stored.chunk_ids.index(cid) for cid in sample]
    # Ingest may embed in bfloat16 (embed.precision), questions in float32: the same text agrees to
    # a cosine of 0.99997 or more, while a chunk cut one sentence differently falls far below.
    agree = (vectors * stored.matrix[rows]).sum(axis=1)
    assert agree.min() > 0.9999, agree.min()
    assert (vectors @ stored.matrix.T).argmax(axis=1).tolist() == rows


@pytest.mark.slow
def test_the_abstract_limit_and_the_embedding_slice_come_from_the_storage_settings(
    tmp_path: Path, settings_for: Callable[..., Settings]
) -> None:
    long_text = "A long abstract about counting penguins from drone images in the Antarctic. " * 2  # 151 once stripped
    (tmp_path / "seeds.txt").write_text(f"{long_text}\n\nA short one about penguins.\n", encoding="utf-8")
    (tmp_path / "more.jsonl").write_text(json.dumps({"abstract": long_text}) + "\n", encoding="utf-8")
    settings = settings_for(tmp_path / "store", storage=StoreSettings(max_abstract_chars=100, embed_slice=1))
    bot = Paperbot(settings)
    calls: list[int] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return bot.embedder.fresh(texts)

    with pytest.raises(InputError, match=r"seeds.txt line 1: an abstract of 151 characters, more than the 100"):
        pipeline.run([tmp_path / "seeds.txt"], settings, bot.store, embed)
    report = pipeline.run([tmp_path / "seeds.txt", tmp_path / "more.jsonl"], settings, bot.store, embed, skip_bad=True)
    assert report.added == 2  # the short paragraph, and the long JSONL record kept with a warning
    assert any("more than the 100 abstracts have; kept" in w for w in report.warnings)
    assert calls and set(calls) == {1}  # one chunk text per embedder call
