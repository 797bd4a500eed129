"""Each paper's BM25 terms kept beside the saved index, so that an ingest cuts only the papers it
changed into words instead of every stored one (271 s of a 100-paper ingest at a million papers,
docs/scale.md).

Terms are vocabulary numbers, one row of numbers per paper (`Numbered`, compressed-row form), for
the words and for the word pairs, with each paper's acronym definitions. `merged` numbers the
terms of a new corpus exactly as a fresh build numbers them (by first appearance, papers in id
order), so the index built from them is the one a full build makes. It builds no index
(bot.store.lexical does) and cuts no text (bot.text.terms does).
"""

from __future__ import annotations

import itertools
import json
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np

Definitions = list[tuple[str, str]]  # (acronym, long form) pairs of one paper, in its order
# Bump when bot.text.acronyms' definitions change; tokenisation has bot.store.lexical's TOKENS_VERSION.
DEFINITIONS_VERSION = 1


def made_by() -> str:
    """What saved terms depend on besides paperbot's own tokenising: the libraries that stem and
    list stopwords. Terms saved under others are not reused (the index is built in full once).

    Example: made_by() -> "1 bm25s 0.3.16 PyStemmer 3.1.0"
    """
    versions = []
    for library in ("bm25s", "PyStemmer"):
        try:
            versions.append(f"{library} {metadata.version(library)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{library} ?")
    return " ".join([str(DEFINITIONS_VERSION), *versions])


@dataclass(frozen=True)
class Numbered:
    """Each paper's terms as vocabulary numbers: paper i's are ids[indptr[i]:indptr[i + 1]].

    Example: Numbered.of([[0, 1], [1]]) -> indptr [0, 2, 3], ids [0, 1, 1]
    """

    indptr: np.ndarray  # int64, papers + 1
    ids: np.ndarray  # int32

    @classmethod
    def of(cls, numbered: Sequence[Sequence[int]]) -> Numbered:
        indptr = np.zeros(len(numbered) + 1, dtype=np.int64)
        np.cumsum([len(terms) for terms in numbered], out=indptr[1:])
        ids = np.fromiter(itertools.chain.from_iterable(numbered), dtype=np.int32, count=int(indptr[-1]))
        return cls(indptr, ids)

    def lists(self) -> list[list[int]]:
        """Each paper's numbers as a list, as bm25s indexes them."""
        return [part.tolist() for part in np.split(self.ids, self.indptr[1:-1])] if len(self.indptr) > 1 else []

    def fits(self, papers: int, vocabulary: int) -> bool:
        """Whether these are rows of `papers` papers numbered within a vocabulary of that size."""
        indptr = self.indptr
        return (
            len(indptr) == papers + 1
            and int(indptr[0]) == 0
            and int(indptr[-1]) == len(self.ids)
            and bool(np.all(indptr[1:] >= indptr[:-1]))
            and (not len(self.ids) or (int(self.ids.min()) >= 0 and int(self.ids.max()) < vocabulary))
        )


@dataclass(frozen=True)
class Terms:
    """What an index was built from, paper by paper (papers in the index's order)."""

    words: Numbered
    pairs: Numbered
    defined: list[Definitions]

    def save(self, folder: Path, paper_ids: Sequence[str]) -> None:
        """Write beside the index in `folder` (an index folder being written)."""
        np.savez(
            folder / "terms.npz",
            words_indptr=self.words.indptr,
            words_ids=self.words.ids,
            pairs_indptr=self.pairs.indptr,
            pairs_ids=self.pairs.ids,
        )
        defined = {pid: pairs for pid, pairs in zip(paper_ids, self.defined, strict=True) if pairs}
        (folder / "definitions.json").write_text(json.dumps(defined, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path, paper_ids: Sequence[str]) -> Terms | None:
        """The terms saved with the index in `folder` for these papers, None when there are none (an
        index saved before terms were kept) or they do not fit."""
        try:
            with np.load(folder / "terms.npz", allow_pickle=False) as data:
                words = Numbered(data["words_indptr"], data["words_ids"])
                pairs = Numbered(data["pairs_indptr"], data["pairs_ids"])
            stored = json.loads((folder / "definitions.json").read_text(encoding="utf-8"))
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
            return None
        if len(words.indptr) != len(paper_ids) + 1 or len(pairs.indptr) != len(paper_ids) + 1:
            return None
        defined = [[(str(a), str(f)) for a, f in stored.get(pid, [])] for pid in paper_ids]
        return cls(words, pairs, defined)


def vocabulary(vocab: Mapping[str, int]) -> list[str]:
    """Terms by number, from an index's {term: number}. Example: {"a": 0, "b": 1} -> ["a", "b"]"""
    terms = [""] * len(vocab)
    for term, number in vocab.items():
        terms[number] = term
    return terms


def merged(
    old: Numbered, old_terms: list[str], rows: Sequence[int], fresh: Mapping[int, list[str]]
) -> tuple[Numbered, dict[str, int]]:
    """The numbered terms of a new corpus and its vocabulary, numbered as `_numbered` numbers a fresh
    build's (each term by its first appearance, papers in order; a paper without terms counts as
    the empty term): paper i is paper rows[i] of `old` (numbered by `old_terms`), or, where rows[i]
    is -1, the terms fresh[i].

    Example: old [[0], [1]] of ["x", "y"], rows [1, -1], fresh {1: ["z", "y"]} -> [[0], [1, 0]], {"y": 0, "z": 1}
    """
    extended = {term: number for number, term in enumerate(old_terms)}
    added: list[str] = []
    parts: list[np.ndarray] = []
    for paper, row in enumerate(rows):
        if row >= 0:
            parts.append(old.ids[old.indptr[row] : old.indptr[row + 1]])
            continue
        numbers = []
        for term in fresh[paper] or [""]:
            number = extended.get(term)
            if number is None:
                number = extended[term] = len(extended)
                added.append(term)
            numbers.append(number)
        parts.append(np.array(numbers, dtype=np.int64))
    lengths = np.array([len(part) for part in parts], dtype=np.int64)
    every = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)
    present, first = np.unique(every, return_index=True)
    order = present[np.argsort(first, kind="stable")]  # numbers in order of first appearance
    renumber = np.full(len(extended), -1, dtype=np.int64)
    renumber[order] = np.arange(len(order))
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    terms = old_terms + added
    vocab = {terms[number]: i for i, number in enumerate(order.tolist())}
    return Numbered(indptr, renumber[every].astype(np.int32)), vocab
