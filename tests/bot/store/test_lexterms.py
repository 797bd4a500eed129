"""The BM25 index updated from the one saved before an ingest and the changed papers' texts is the
index a full build of the new texts makes: the same vocabulary in the same order, the same scores,
the same acronyms."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from bot.settings import LexicalSettings
from bot.store import Store
from bot.store.lexical import LexicalIndex
from bot.store.lexterms import Numbered, Terms, merged
from bot.store.store import lexical_index

if TYPE_CHECKING:  # the fixture's class, for annotations only (tests/bot/store/conftest.py)
    from conftest import Ingests

BEFORE = {
    "p01": "We propose on-policy distillation (OPD) for small language models (SLMs).",
    "p03": "Group relative policy optimization (GRPO) trains reasoning models with verifiable rewards.",
    "p05": "",  # no terms at all: indexed as the empty term, as a full build does
    "p07": "Offline reinforcement learning (RL) with conservative critics; off-policy data (OPD).",
    "p09": "Tide heights from sparse harbour gauges; storm surges in coastal towns.",
    "p11": "Penguins counted in drone images of Antarctic colonies by a convolutional network.",
}
AFTER = {
    "p01": BEFORE["p01"],
    "p02": "Order-preserving decoding (OPD) for streaming speech; a brand new xylophone term.",
    "p03": BEFORE["p03"],
    "p04": "",
    "p07": "Offline RL revisited: pessimistic critics and on-policy distillation (OPD) compared.",  # edited
    "p11": BEFORE["p11"] + " Seals too.",  # edited
    "p12": "Medieval manuscripts restored by a language model from ink traces.",
}  # p05 and p09 removed


def _same(a: LexicalIndex, b: LexicalIndex, terms: bool = True) -> None:
    assert a.paper_ids == b.paper_ids
    assert a.acronyms == b.acronyms
    for mine, theirs in ((a._bm25, b._bm25), (a._pairs, b._pairs)):
        assert mine is not None and theirs is not None
        assert list(mine.vocab_dict.items()) == list(theirs.vocab_dict.items())  # same numbers, same order
        for key in ("data", "indices", "indptr"):
            assert np.array_equal(np.asarray(mine.scores[key]), np.asarray(theirs.scores[key])), key
    if terms:
        _same_terms(a.terms, b.terms)


def _same_terms(a: Terms | None, b: Terms | None) -> None:
    assert a is not None and b is not None
    for mine, theirs in ((a.words, b.words), (a.pairs, b.pairs)):
        assert np.array_equal(mine.indptr, theirs.indptr) and np.array_equal(mine.ids, theirs.ids)
    assert a.defined == b.defined


def test_an_updated_index_is_the_one_a_full_build_makes(tmp_path: Path) -> None:
    settings = LexicalSettings()
    LexicalIndex.build(BEFORE, settings).save(tmp_path / "lexical", 7)
    changed = {pid: AFTER[pid] for pid in ("p02", "p04", "p07", "p11", "p12")}

    updated = LexicalIndex.updated(tmp_path / "lexical", 7, settings, sorted(AFTER), changed)

    assert updated is not None
    full = LexicalIndex.build(AFTER, settings)
    _same(updated, full)
    assert (
        updated.acronyms["OPD"] == full.acronyms["OPD"]
    )  # counts changed by the edit, ties as a full build breaks them
    for query in ("on-policy distillation", "xylophone decoding", "penguins and seals", "tide"):
        assert np.array_equal(updated.scores(query), full.scores(query))
        assert np.array_equal(updated.pair_scores(query), full.pair_scores(query))
    # Saved and updated again (nothing changed): still the same index.
    updated.save(tmp_path / "lexical", 8)
    again = LexicalIndex.updated(tmp_path / "lexical", 8, settings, sorted(AFTER), {})
    assert again is not None
    _same(again, full)


def test_no_update_without_the_saved_index_of_that_version_or_a_papers_text(tmp_path: Path) -> None:
    settings = LexicalSettings()
    LexicalIndex.build(BEFORE, settings).save(tmp_path / "lexical", 7)
    assert LexicalIndex.updated(tmp_path / "lexical", 6, settings, sorted(BEFORE), {}) is None
    # p02 is neither in the saved index nor among the changed papers: its text is unknown.
    assert LexicalIndex.updated(tmp_path / "lexical", 7, settings, ["p01", "p02"], {}) is None
    assert LexicalIndex.updated(tmp_path / "lexical", 7, settings, sorted(BEFORE), {}) is not None
    # Terms cut by other versions of the stemming libraries are not reused.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("bot.store.lexical.made_by", lambda: "1 bm25s 9.9 PyStemmer 9.9")
        assert LexicalIndex.updated(tmp_path / "lexical", 7, settings, sorted(BEFORE), {}) is None
    (tmp_path / "lexical" / "terms.npz").write_bytes(b"PK\x03\x04 damaged")
    assert LexicalIndex.updated(tmp_path / "lexical", 7, settings, sorted(BEFORE), {}) is None
    (tmp_path / "lexical" / "terms.npz").unlink()  # an index saved before terms were kept
    assert LexicalIndex.updated(tmp_path / "lexical", 7, settings, sorted(BEFORE), {}) is None


def test_terms_are_numbered_by_first_appearance() -> None:
    old = Numbered.of([[0], [1]])
    numbered, vocab = merged(old, ["x", "y"], [1, -1], {1: ["z", "y"]})
    assert numbered.lists() == [[0], [1, 0]]
    assert vocab == {"y": 0, "z": 1}


@pytest.mark.slow
def test_each_ingest_updates_the_saved_index_to_what_a_full_build_makes(ingests: Ingests) -> None:
    texts = ingests.texts  # the first ingest built the index from every paper

    def check(abstracts: list[str], header: str = "ICML 2025", **options: Any) -> None:
        _, logged = ingests.again(abstracts, header, **options)
        assert "updated the BM25 index" in logged
        store = Store.open(ingests.settings)
        saved = store.saved_lexical()
        assert saved is not None
        full = lexical_index(store.papers(), store.bm25)
        _same(saved, full, terms=False)  # a reader's index is loaded without its terms
        _same_terms(Terms.load(store.paths.lexical, saved.paper_ids), full.terms)

    edited = texts[0] + " It also counts seals (SEAL)."
    check([edited, texts[1], texts[2]])  # one edited (a new id), one added
    check([edited, texts[2]], prune=True)  # one pruned
    check([edited, texts[2]], header="ICML 2026")  # metadata only
