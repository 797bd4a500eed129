"""The one owner of bm25s: a BM25 index over paper texts, saved in the store folder.

Terms come from bot.text.terms (jargon whole and split, stemmed). A second index over
neighbouring word pairs scores proximity: "IL-6 expression" matches "expression of IL-6" better
than a paper that mentions the two words far apart. It scores papers and measures query-word
coverage; it does not fuse scores with dense retrieval (bot.search.retrieve does).
"""

from __future__ import annotations

import json
import logging
import math
import shutil
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path

import bm25s
import numpy as np

from bot.settings import LexicalSettings
from bot.store.lexterms import Definitions, Numbered, Terms, made_by, merged, vocabulary
from bot.text import acronyms
from bot.text.terms import (
    akin,
    base_names,
    pair_set,
    pair_tokens,
    query_pair_tokens,
    query_words,
    search_terms,
    term_set,
    tokenize,
    word_tokens,
)

log = logging.getLogger(__name__)
# bm25s sets its own logger to DEBUG when imported, which would print on every index build.
logging.getLogger("bm25s").setLevel(logging.WARNING)


# Saved indices record this; bump it when tokenisation changes so they are rebuilt.
TOKENS_VERSION = 3
# What every index saved before k1 and b were recorded was built with: a fact about those files,
# not a setting (LexicalSettings holds the values new indexes are built with).
_UNRECORDED_BM25 = {"k1": 1.2, "b": 0.75}


def _numbered(
    texts: Iterable[str], terms: Callable[[str], list[str]] = tokenize
) -> tuple[list[list[int]], dict[str, int]]:
    """Each text's terms as vocabulary numbers, and the vocabulary: what bm25s indexes.

    Numbered text by text, so the terms of every text are never held at once as strings (at 100,000
    abstracts those lists took about 1.2 GB of a new reader's 2.7 GB; docs/scale.md).
    Example: _numbered(["a b", "b"], str.split) -> ([[0, 1], [1]], {'a': 0, 'b': 1})
    """
    vocab: dict[str, int] = {}
    numbered = [[vocab.setdefault(term, len(vocab)) for term in terms(text) or [""]] for text in texts]
    return numbered, vocab


class LexicalIndex:
    """BM25 scores for every paper, in a fixed paper order."""

    def __init__(
        self,
        paper_ids: list[str],
        retriever: bm25s.BM25,
        known: dict[str, str] | None = None,
        pairs: bm25s.BM25 | None = None,
        terms: Terms | None = None,
    ) -> None:
        self.paper_ids = paper_ids
        self.terms = terms  # what it was built from, saved with it so that the next ingest can update it
        self._made_by: str | None = None  # for a loaded index: what its saved terms were cut with (made_by)
        self.acronyms = known or {}  # acronym -> long form, as the corpus defines them
        # query words are lower case: "llms" -> pairs of "large language models"
        self._spelled = {a.lower(): pair_tokens(form) for a, form in self.acronyms.items()}
        # and the other way: the words of a long form of two words or more -> the acronym's index terms; not for
        # an acronym of two letters, which too many fields use for other things ("IL", "RL")
        self._long_forms: dict[tuple[str, ...], list[str]] = {}
        for acronym, form in self.acronyms.items():
            spelled = tuple(query_words(form))
            if len(spelled) >= 2 and len(acronym.rstrip("s")) >= 3:
                self._long_forms.setdefault(spelled, []).extend(word_tokens(acronym.lower()))
        self._long_forms_from: dict[str, list[tuple[str, ...]]] = {}  # by first word: a query is read once
        for words_of in self._long_forms:
            self._long_forms_from.setdefault(words_of[0], []).append(words_of)
        self._bm25 = retriever
        self._pairs = pairs  # BM25 over neighbouring word pairs (proximity); None for an empty corpus
        self._position = {pid: i for i, pid in enumerate(paper_ids)}
        # An empty corpus has no index at all: no vocabulary, no scores.
        self._vocab: dict[str, int] = getattr(retriever, "vocab_dict", None) or {}
        self._pair_vocab: dict[str, int] = getattr(pairs, "vocab_dict", None) or {}
        self._built: dict[str, list[str]] = {}  # a base name -> the index terms built on it (_built_on)
        self._akin_weights: dict[str, float] = {}  # a word found as any of its family -> their idf (_akin_weight)
        indptr = np.asarray(retriever.scores["indptr"]) if paper_ids else np.zeros(1)
        self._df = np.diff(indptr)  # documents containing each vocabulary term
        self._n = max(1, len(paper_ids))
        self._unseen_idf = math.log(1 + (self._n + 0.5) / 0.5)

    @classmethod
    def build(cls, docs: dict[str, str], settings: LexicalSettings) -> LexicalIndex:
        """Index `docs` {paper_id: text} with BM25's `settings.k1` and `settings.b`."""
        ids = sorted(docs)
        words, word_vocab = _numbered(docs[pid] for pid in ids)
        pairs, pair_vocab = _numbered((docs[pid] for pid in ids), pair_tokens)
        defined = [acronyms.definitions(docs[pid]) for pid in ids]
        terms = Terms(Numbered.of(words), Numbered.of(pairs), defined)
        return cls._indexed(ids, (words, word_vocab), (pairs, pair_vocab), terms, settings)

    @classmethod
    def _indexed(
        cls,
        ids: list[str],
        words: tuple[list[list[int]], dict[str, int]],
        pairs: tuple[list[list[int]], dict[str, int]],
        terms: Terms,
        settings: LexicalSettings,
    ) -> LexicalIndex:
        """The index of papers `ids` from their numbered words and word pairs (with the vocabularies)."""
        retriever = bm25s.BM25(k1=settings.k1, b=settings.b)
        pair_retriever = bm25s.BM25(k1=settings.k1, b=settings.b)
        if ids:
            retriever.index(words, show_progress=False)
            pair_retriever.index(pairs, show_progress=False)
        return cls._finished(ids, retriever, pair_retriever, terms)

    @classmethod
    def _finished(cls, ids: list[str], retriever: bm25s.BM25, pair_retriever: bm25s.BM25, terms: Terms) -> LexicalIndex:
        known = acronyms.most_frequent(terms.defined)
        return cls(ids, retriever, known, pair_retriever if ids else None, terms)

    @classmethod
    def updated(
        cls, folder: Path, version: int, settings: LexicalSettings, ids: list[str], changed: dict[str, str]
    ) -> LexicalIndex | None:
        """The index of papers `ids` (sorted) from the one saved in `folder` for registry `version`
        and the texts of the papers changed since (`changed`: every paper of `ids` written or edited
        since; the others are as they were, and papers no longer in `ids` are left out). Only the
        changed papers are cut into terms; the result is the index a full build of the same texts
        makes. None when no index with its terms was saved for that version.

        Example: updated(folder, 12, settings, ["p1", "p2", "p3"], {"p3": "New abstract ..."})
        """
        saved = cls.load(folder, version, settings)
        if saved is None or saved._pairs is None or saved._made_by != made_by():
            return None  # none, empty, or its terms cut by other library versions
        terms = Terms.load(folder, saved.paper_ids)
        papers = len(saved.paper_ids)
        if terms is None or not terms.words.fits(papers, len(saved._vocab)):
            return None
        if not terms.pairs.fits(papers, len(saved._pair_vocab)):
            return None
        position = {pid: i for i, pid in enumerate(saved.paper_ids)}
        rows = [-1 if pid in changed else position.get(pid, -2) for pid in ids]
        if not ids or -2 in rows:  # a paper neither kept nor changed: not this index's successor
            return None
        new = [i for i, row in enumerate(rows) if row < 0]
        words, word_vocab = merged(
            terms.words, vocabulary(saved._vocab), rows, {i: tokenize(changed[ids[i]]) for i in new}
        )
        pairs, pair_vocab = merged(
            terms.pairs, vocabulary(saved._pair_vocab), rows, {i: pair_tokens(changed[ids[i]]) for i in new}
        )
        defined: list[Definitions] = [
            terms.defined[row] if row >= 0 else acronyms.definitions(changed[pid])
            for pid, row in zip(ids, rows, strict=True)
        ]
        fresh = Terms(words, pairs, defined)
        del saved, terms
        # One index at a time, so that only one set of per-paper lists is held (at a million papers
        # each holds about 4 GB of Python ints).
        retriever = bm25s.BM25(k1=settings.k1, b=settings.b)
        retriever.index((words.lists(), word_vocab), show_progress=False)
        pair_retriever = bm25s.BM25(k1=settings.k1, b=settings.b)
        pair_retriever.index((pairs.lists(), pair_vocab), show_progress=False)
        return cls._finished(ids, retriever, pair_retriever, fresh)

    def expand(self, query: str) -> str:
        """The query with the acronyms the corpus defines spelled out (for the embedder).

        Example: expand("OPD vs SFT") -> "OPD (on-policy distillation) vs SFT (supervised fine-tuning)"
        """
        return acronyms.expand(query, self.acronyms)

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every paper (in `paper_ids` order) for `query`."""
        return self.scores_for(self.query_terms(query))

    def scores_for(self, search: Sequence[str]) -> np.ndarray:
        """BM25 score of every paper for a query's search terms (bot.query.Query.search_terms)."""
        terms = [t for t in search if t in self._vocab]
        if not terms or not self.paper_ids:
            return np.zeros(len(self.paper_ids), dtype=np.float32)
        return np.asarray(self._bm25.get_scores(terms), dtype=np.float32)

    def pair_scores(self, query: str) -> np.ndarray:
        """BM25 over neighbouring word pairs: papers that put the query's words side by side
        ("IL-6 expression" or "expression of IL-6") score; all zeros for a one-word query."""
        return self.pair_scores_for(query_pair_tokens(query))

    def pair_scores_for(self, pairs: Sequence[str]) -> np.ndarray:
        """BM25 over a query's word pairs (bot.query.Query.pairs); see `pair_scores`."""
        terms = [t for t in pairs if t in self._pair_vocab]
        if not terms or self._pairs is None:
            return np.zeros(len(self.paper_ids), dtype=np.float32)
        return np.asarray(self._pairs.get_scores(terms), dtype=np.float32)

    @staticmethod
    def query_terms(query: str) -> list[str]:
        """Index terms a query is searched by (bot.text.terms.search_terms).

        Example: query_terms("multi-agent MuJoCo") -> ['multi', 'agent', 'mujoco']
        """
        return search_terms(query_words(query))

    def doc_freq(self, word: str) -> int:
        """Number of papers containing `word` (as indexed: compounds whole, parts stemmed).

        Example: doc_freq("GRPO") -> 8 on the seeds
        """
        terms = word_tokens(word.lower())
        tid = self._vocab.get(terms[0]) if terms else None
        return 0 if tid is None or tid >= len(self._df) else int(self._df[tid])

    def idf(self, term: str) -> float:
        """Inverse document frequency of an index term (0 when unknown)."""
        tid = self._vocab.get(term)
        if tid is None or tid >= len(self._df):
            return 0.0
        df = int(self._df[tid])
        return math.log(1 + (self._n - df + 0.5) / (df + 0.5))

    def spelled_out(self, word: str) -> list[str]:
        """Word pairs of the long form the corpus gives acronym `word` (lower case), or [].

        A paper that writes "large language models" contains the query word "LLMs".
        Example: spelled_out("llms") -> ['languag_larg', 'languag_model']
        """
        singular = word[:-1] if word.endswith("s") else word
        return self._spelled.get(word) or self._spelled.get(singular) or self._spelled.get(f"{singular}s") or []

    def coverage(self, query: str, text: str) -> tuple[float, tuple[str, ...]]:
        """Idf-weighted share of the query's words found in `text`, and those words.

        Example: coverage("safe GRPO", "... GRPO ...") -> (0.8, ('grpo',)) when 'grpo' is rare.
        """
        present = term_set(text)
        names = base_names(query)
        said = query_words(query)
        abbreviated = self._abbreviated(said)
        total = found = 0.0
        matched: list[str] = []
        for word in dict.fromkeys(said):
            terms = word_tokens(word)
            if not terms:
                continue
            # a word the corpus never uses is as rare as a word can be
            weight = self._akin_weight(word) or max(self.idf(t) for t in terms) or self._unseen_idf
            total += weight
            long_form = self.spelled_out(word)
            if (
                terms[0] in present
                or not akin(word).isdisjoint(present)
                or all(t in present for t in terms[1:] or terms)
                or (word in names and any(len(t) > len(word) and t.endswith(word) for t in present))
                or (long_form and all(p in pair_set(text) for p in long_form))
                or not present.isdisjoint(abbreviated.get(word, ()))
            ):
                found += weight
                matched.append(word)
        return (found / total if total else 0.0), tuple(matched)

    def word_presence(self, query: str) -> list[tuple[str, float, np.ndarray]]:
        """For each query word: its idf weight and which papers contain it (bool, `paper_ids` order).

        The same rule as `coverage` (the whole compound, all of its parts, or an acronym's long
        form word pair by word pair), read from the index instead of re-tokenising every paper,
        so a whole corpus costs a few array ops.
        Example: word_presence("safe GRPO") -> [('safe', 2.1, array([...])), ('grpo', 3.4, array([...]))]
        """
        said = query_words(query)
        presence = self.presence_of(said, base_names(query))
        abbreviated = self._abbreviated(said)
        return [
            (word, weight, mask | np.logical_or.reduce([self._docs_with(t) for t in abbreviated[word]]))
            if abbreviated.get(word)
            else (word, weight, mask)
            for word, weight, mask in presence
        ]

    def _abbreviated(self, said: list[str]) -> dict[str, list[str]]:
        """The query words that spell out an acronym the corpus defines, each with the acronym's index terms: a
        paper writing "LLM-based" holds "large language models". Example: ['large', 'language', 'models',
        'recommendation'] -> {'large': ['llm'], 'language': ['llm'], 'models': ['llm']}"""
        out: dict[str, list[str]] = {}
        for i, first in enumerate(said):
            for form in self._long_forms_from.get(first, ()):
                if tuple(said[i : i + len(form)]) == form:
                    for word in form:
                        out.setdefault(word, []).extend(self._long_forms[form])
        return out

    def presence_of(
        self, words: Iterable[str], names: frozenset[str] = frozenset()
    ) -> list[tuple[str, float, np.ndarray]]:
        """`word_presence` for a query's content words (bot.query.Query.words); a word among `names`
        (bot.text.terms.base_names) is also present where a word ending with it is ("MaMuJoCo")."""
        out: list[tuple[str, float, np.ndarray]] = []
        for word in dict.fromkeys(words):
            terms = word_tokens(word)
            if not terms:
                continue
            weight = self._akin_weight(word) or max(self.idf(t) for t in terms) or self._unseen_idf
            whole = self._docs_with(terms[0])
            for other in [*akin(word), *(self._built_on(word) if word in names else ())]:
                whole = whole | self._docs_with(other)
            parts = [self._docs_with(t) for t in terms[1:] or terms]
            both = np.logical_and.reduce(parts) if parts else whole
            long_form = [self._docs_with(p, pairs=True) for p in self.spelled_out(word)]
            spelled = np.logical_and.reduce(long_form) if long_form else np.zeros_like(whole)
            out.append((word, weight, whole | both | spelled))
        return out

    @staticmethod
    def shares(
        presence: list[tuple[str, float, np.ndarray]], papers: int, among: Collection[str] | None = None
    ) -> np.ndarray:
        """Per paper (`papers` of them), from `word_presence`: the idf-weighted share of the query's
        words it contains, which is `coverage` for every paper at once; all zeros for a query with
        no index word ("What?"). With `among`, only those query words count as found (their share
        of the whole query).

        Example: words 'safe' (weight 1) and 'grpo' (weight 3); a paper with only 'grpo' -> 0.75
        """
        found = np.zeros(papers, dtype=np.float64)
        total = sum(weight for _, weight, _ in presence)
        for word, weight, present in presence:
            if among is None or word in among:
                found += weight * present
        return found / total if total > 0 else found

    def _akin_weight(self, word: str) -> float:
        """For a word found as any of its family (bot.text.terms.akin), the idf of the papers holding one of
        them: "plain" is rare in abstracts only because they write "standard". 0.0 for other words."""
        family = akin(word)
        if not family:
            return 0.0
        if word not in self._akin_weights:
            held = np.logical_or.reduce([self._docs_with(t) for t in {*word_tokens(word), *family}])
            df = int(held.sum())
            self._akin_weights[word] = math.log(1 + (self._n - df + 0.5) / (df + 0.5)) if df else self._unseen_idf
        return self._akin_weights[word]

    def _built_on(self, name: str) -> list[str]:
        """The index terms ending with `name` and longer: names built on it. Example: 'mujoco' -> ['mamujoco']"""
        if name not in self._built:
            self._built[name] = [t for t in self._vocab if len(t) > len(name) and t.endswith(name)]
        return self._built[name]

    def _docs_with(self, term: str, pairs: bool = False) -> np.ndarray:
        """Which papers contain an index term (or, with `pairs`, a word pair)."""
        mask = np.zeros(len(self.paper_ids), dtype=bool)
        index, vocab = (self._pairs, self._pair_vocab) if pairs else (self._bm25, self._vocab)
        tid = vocab.get(term)
        if index is None or tid is None:
            return mask
        indptr = index.scores["indptr"]
        if tid + 1 >= len(indptr):
            return mask
        mask[np.asarray(index.scores["indices"][indptr[tid] : indptr[tid + 1]], dtype=np.int64)] = True
        return mask

    def save(self, folder: Path, version: int) -> None:
        """Persist the index; `version` is the registry version it was built from.

        Written beside `folder` and swapped in whole, so a failed save (a full disk) leaves the index
        that was there and no partial files; the OSError is raised for the caller to explain.
        """
        tmp = folder.with_name(folder.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            tmp.mkdir(parents=True)
            if self.paper_ids:
                self._bm25.save(str(tmp / "bm25"))
            if self._pairs is not None:
                self._pairs.save(str(tmp / "pairs"))
            if self.terms is not None and self.paper_ids:
                self.terms.save(tmp, self.paper_ids)
            meta = {
                "version": version,
                "tokens": TOKENS_VERSION,
                "terms_made_by": made_by(),
                "ids": self.paper_ids,
                "acronyms": self.acronyms,
                "pairs": self._pairs is not None,
                "k1": self._bm25.k1,
                "b": self._bm25.b,
            }
            (tmp / "index.json").write_text(json.dumps(meta))
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        shutil.rmtree(folder, ignore_errors=True)
        tmp.rename(folder)

    @classmethod
    def load(cls, folder: Path, version: int, settings: LexicalSettings) -> LexicalIndex | None:
        """The saved index if it was built from registry `version` with `settings`' k1 and b, else None."""
        try:
            meta = json.loads((folder / "index.json").read_text())
            if meta["version"] != version or not meta["ids"] or meta.get("tokens") != TOKENS_VERSION:
                return None  # stale, empty, or tokenised the way an earlier version did
            built = {name: meta.get(name, value) for name, value in _UNRECORDED_BM25.items()}
            if built != {"k1": settings.k1, "b": settings.b}:
                log.info("lexical index in %s built with %s, not the settings' k1 and b; rebuilding", folder, built)
                return None
            # Memory-mapped: a query reads only its terms' postings, so a reader's memory and start do
            # not grow with the index (150 MB at 100,000 papers, docs/scale.md).
            index = cls(
                meta["ids"],
                bm25s.BM25.load(str(folder / "bm25"), mmap=True),
                meta.get("acronyms"),
                bm25s.BM25.load(str(folder / "pairs"), mmap=True),
            )
            index._made_by = meta.get("terms_made_by")
            return index
        except (OSError, ValueError, KeyError) as exc:
            log.info("lexical index in %s not usable (%s); rebuilding", folder, exc)
            return None
