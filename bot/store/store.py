"""The one owner of everything persisted: a facade over one store folder (or a Chroma server).

It holds the paper registry and the reading lists (on one SQLite connection), the Chroma
collection of chunk vectors, the BM25 index files, the .npz vector cache, the write lock and the
fingerprint check, and reads a whole store version into memory (`corpus`). Search, answers, the
library, evaluation and ingest reach what is stored only through it. It does not embed text, rank
papers or read input files.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from bot.errors import FingerprintError, StoreError
from bot.settings import ChunkSettings, EmbedSettings, LexicalSettings, Settings, StoreSettings
from bot.store import lock as storelock
from bot.store.chroma import VectorStore
from bot.store.corpus import Corpus
from bot.store.fingerprint import REGISTRY_KEY, describe_fingerprint, index_fingerprint, mismatch
from bot.store.lexical import LexicalIndex
from bot.store.lists import ReadingLists
from bot.store.paths import StorePaths
from bot.store.registry import Registry
from bot.store.vectors import ChunkVectors, VectorCache
from bot.text import chunking
from bot.types import Chunk, Paper

log = logging.getLogger(__name__)


def lexical_index(papers: dict[str, Paper], settings: LexicalSettings) -> LexicalIndex:
    """The BM25 index of `papers` (title and abstract of each), as ingest saves it."""
    return LexicalIndex.build({pid: p.searchable_text() for pid, p in papers.items()}, settings)


class Store:
    """Everything stored in one store folder, opened once per process and shared by its threads.

    Opening never fails on a store built with other settings: it refuses to read or write it
    (FingerprintError) until `prepare_write(rebuild=True)` resets it.
    Example: Store.open(settings).corpus() -> Corpus of the 53 seed papers
    """

    def __init__(
        self,
        folder: Path,
        chroma_url: str | None,
        storage: StoreSettings,
        embed: EmbedSettings,
        chunk: ChunkSettings,
        lexical: LexicalSettings,
    ) -> None:
        self.paths = StorePaths(folder)
        self.chunk = chunk
        self.bm25 = lexical  # the BM25 index is rebuilt when the saved one was built otherwise
        self.fingerprint = index_fingerprint(embed, chunk)
        self._described = describe_fingerprint(embed, chunk)
        self.registry = Registry(folder)
        self.vectors = VectorStore(folder, chroma_url, storage.collection, self.fingerprint)
        # Held while this process writes the store or reads a version of it whole, so that a
        # question arriving during an ingest waits for it instead of reading half of it.
        self.lock = threading.RLock()
        self._lists: ReadingLists | None = None
        self._corpus: Corpus | None = None
        self._corpus_key: tuple[int, int] | None = None  # (registry version, vector count) it was read at
        self.vectors.refuse(self._mismatch())

    @classmethod
    def open(cls, settings: Settings) -> Store:
        """The store `settings` name (its folder, or a Chroma server with the registry in the folder)."""
        sections = (settings.storage, settings.embed, settings.chunk, settings.lexical)
        return cls(settings.store, settings.chroma_url, *sections)

    # --- The fingerprint: checked here only ---

    def _mismatch(self) -> FingerprintError | None:
        registered = (self.registry.count(), self.registry.get_meta(REGISTRY_KEY))
        return mismatch(
            self.fingerprint,
            self._described,
            self.vectors.location,
            self.vectors.collection,
            self.vectors.stored(),
            registered,
        )

    def prepare_write(self, rebuild: bool) -> None:
        """Before an ingest writes: empty the store for a rebuild, else refuse one built with other
        settings (FingerprintError); then tag it with the current fingerprint."""
        if rebuild:
            self.vectors.reset()
            self.registry.write(delete=list(self.registry.papers()))
        else:
            error = self._mismatch()
            self.vectors.refuse(error)
            if error is not None:
                raise error
        self.registry.set_meta(REGISTRY_KEY, self.fingerprint)

    # --- Papers, reading lists and the write lock ---

    def papers(self) -> dict[str, Paper]:
        """Every stored paper by id."""
        return self.registry.papers()

    def paper_count(self) -> int:
        return self.registry.count()

    def version(self) -> int:
        """The registry version: it moves with every write, from this process or another."""
        return self.registry.version()

    @property
    def lists(self) -> ReadingLists:
        """The store's reading lists (opened on first use, on the registry's connection)."""
        with self.lock:
            if self._lists is None:
                self._lists = ReadingLists(self.registry.database)
            return self._lists

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the store for writing: this process's readers wait, another writer raises StoreError."""
        with self.lock, storelock.writing(self.paths.folder):
            yield

    def writer(self) -> str | None:
        """Who is writing to the store now ('pid 4242 on laptop'), or None."""
        return storelock.writer(self.paths.folder)

    # --- Writes, for ingest (inside `writing`) ---

    def vector_paper_ids(self) -> set[str]:
        """Ids of the papers that have at least one chunk vector stored."""
        return self.vectors.paper_ids()

    def write_papers(self, papers: Sequence[Paper], chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        """Replace these papers' chunk vectors, then register the papers: vectors first, so that a
        crash between the two leaves orphan vectors (overwritten by the next run), never a paper without them."""
        self.vectors.delete_papers([p.paper_id for p in papers])  # an edited paper may have had more chunks
        self.vectors.upsert(chunks, vectors, {p.paper_id: p.label for p in papers})
        self.registry.write(upsert=papers)

    def update_papers(self, papers: Sequence[Paper]) -> None:
        """Register new metadata or sources of papers whose vectors stay as they are."""
        self.registry.write(upsert=papers)

    def remove_papers(self, paper_ids: Sequence[str]) -> None:
        """Forget papers: the registry first, then their vectors."""
        self.registry.write(delete=paper_ids)
        self.vectors.delete_papers(paper_ids)

    def refresh_lexical(self) -> None:
        """Rebuild and save the BM25 index for the registry's current content."""
        lexical_index(self.registry.papers(), self.bm25).save(self.paths.lexical, self.registry.version())

    # --- Reads of a whole store version ---

    def saved_lexical(self) -> LexicalIndex | None:
        """The BM25 index saved for the current version, None when there is none (yet)."""
        return LexicalIndex.load(self.paths.lexical, self.registry.version(), self.bm25)

    def corpus(self) -> Corpus:
        """Every paper, the BM25 index and all chunk vectors in memory; re-read when the store changes."""
        with self.lock:
            key = (self.registry.version(), self.vectors.count())
            if self._corpus is None or self._corpus_key != key:
                started = time.perf_counter()
                papers = self.registry.papers()  # re-read: another process may have ingested since
                lexical = LexicalIndex.load(self.paths.lexical, key[0], self.bm25)
                if lexical is None:  # an ingest is under way, stopped before it saved the index, or k1/b changed
                    lexical = lexical_index(papers, self.bm25)
                    self._save_lexical(lexical, key[0])
                chunks = self._chunk_vectors(*key)
                busy = self.writer() if not papers else None
                if busy is not None:
                    raise StoreError(
                        f"the store in {self.paths.folder} is still empty: an ingest ({busy}) is filling "
                        "it; try again when it finishes"
                    )
                self._corpus = Corpus.build(key[0], papers, lexical, chunks)
                self._corpus_key = key
                log.info("read %d papers' vectors in %.1f s", len(papers), time.perf_counter() - started)
            return self._corpus

    def _chunk_vectors(self, version: int, count: int) -> ChunkVectors:
        """Every chunk vector: from the copy beside the store when there is one for this version, else
        from Chroma (then copied there, unless an ingest wrote meanwhile)."""
        cache = VectorCache(self.paths.folder, f"{version}-{count}-{self.fingerprint[:12]}")
        chunks = cache.load(count)
        if chunks is None:
            chunks = self.vectors.all_vectors()
            if len(chunks.chunk_ids) == count:
                cache.save(chunks)
        return chunks

    def _save_lexical(self, lexical: LexicalIndex, version: int) -> None:
        """Save an index built by a reader, unless an ingest is writing (it saves its own when done)."""
        try:
            with self.writing():
                if self.registry.version() == version:
                    lexical.save(self.paths.lexical, version)
        except StoreError:
            log.info("an ingest is writing to the store; the BM25 index is kept in memory only")

    def chunk_texts(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """The text of each of these chunks, cut again from its paper as ingest cuts it (the
        fingerprint guarantees the same chunk settings); ids of unknown papers are left out.

        Example: chunk_texts(["p346e74853fce-1"]) -> {"p346e74853fce-1": "Hybrid methods combine ..."}
        """
        papers = self.registry.papers()
        wanted: dict[str, list[tuple[str, int]]] = {}
        for chunk_id in chunk_ids:
            parsed = chunking.parse_chunk_id(chunk_id)
            if parsed is not None and parsed[0] in papers:
                wanted.setdefault(parsed[0], []).append((chunk_id, parsed[1]))
        found: dict[str, str] = {}
        for paper_id, positions in wanted.items():
            chunks = chunking.paper_chunks(papers[paper_id], self.chunk)
            found.update({cid: chunks[i].text for cid, i in positions if i < len(chunks)})
        return found

    def close(self) -> None:
        """Close the registry's connection (the lists share it)."""
        self.registry.close()
