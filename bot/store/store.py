"""The one owner of everything persisted: a facade over one store folder (or a Chroma server).

It holds the Chroma collections of chunk vectors and of paper records (the system of record, kept
in line with the local paper registry by bot.store.records), the registry and the reading lists
(on one SQLite connection), the BM25 index files, the .npz vector cache, the write lock and the
fingerprint check, and reads a whole store version into memory (`corpus`). Nothing is created
before the write lock is held; a store that may only be read is read without writing to it (what
readers save goes to the user's cache folder, bot.store.readonly); a full disk is one clear error
(bot.store.failures). Search, answers, the library, evaluation and ingest reach what is stored only
through it. It does not embed text, rank papers or read input files.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from bot.errors import DiskFull, FingerprintError, StoreError
from bot.settings import ChunkSettings, EmbedSettings, LexicalSettings, Settings, StoreSettings
from bot.settings.stored import Precision
from bot.store import cacheupdate, failures, readonly, records
from bot.store import lock as storelock
from bot.store.chroma import VectorStore
from bot.store.corpus import Corpus, DenseVectors, PaperVectors
from bot.store.fingerprint import REGISTRY_KEY, adopted, describe_fingerprint, index_fingerprint, mismatch
from bot.store.lexical import LexicalIndex
from bot.store.lists import ReadingLists, has_tables
from bot.store.nearest import NearestVectors
from bot.store.paths import StorePaths
from bot.store.registry import Registry
from bot.store.rows import read_many
from bot.store.sentences import SentenceVectors, sentence_table
from bot.store.vectors import CachedRows, ChunkVectors, VectorCache, release_memory
from bot.text import chunking
from bot.types import Chunk, Paper

log = logging.getLogger(__name__)

# The registry's meta key set while a rebuild has not yet embedded every stored paper again.
_REBUILDING_KEY = "rebuilding"


def lexical_index(papers: Mapping[str, Paper], settings: LexicalSettings) -> LexicalIndex:
    """The BM25 index of `papers` (title and abstract of each), as ingest saves it."""
    return LexicalIndex.build({pid: p.searchable_text() for pid, p in papers.items()}, settings)


class Store:
    """Everything stored in one store folder, opened once per process and shared by its threads.

    Opening never fails on a store built with other settings: it refuses to read or write it
    (FingerprintError) until `prepare_write(rebuild=True)` resets it. Opening creates no Chroma
    files: the first writer does, holding the write lock. A store this process may not write
    (`read_only`) is read as it is and refuses every write with StoreReadOnly; `cache` is the folder
    its readers save into (default: the user's cache folder, bot.store.readonly).
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
        cache: Path | None = None,
    ) -> None:
        self.paths = StorePaths(folder)
        self.chunk = chunk
        self.bm25 = lexical  # the BM25 index is rebuilt when the saved one was built otherwise
        self.embed = embed  # with precision 'auto', the precision the store was built with once it is known
        self.fingerprint = index_fingerprint(embed, chunk)
        self._described = describe_fingerprint(embed, chunk)
        self.read_only = not failures.writable(folder)
        # Where readers save the BM25 index and the vector cache: the store itself, unless it is read-only.
        self.saves = StorePaths(cache or readonly.cache_folder(folder)) if self.read_only else self.paths
        self._local = chroma_url is None
        self.registry = Registry(folder, self.read_only, storage.papers_in_memory, storage.papers_recent)
        copy = self.saves.folder if self.read_only else None
        self.vectors = VectorStore(folder, chroma_url, storage.collection, self.fingerprint, self._created, copy)
        # Held while this process writes the store or reads a version of it whole, so that a
        # question arriving during an ingest waits for it instead of reading half of it.
        self.lock = threading.RLock()
        self._lists: ReadingLists | None = None
        self._corpus: Corpus | None = None
        self._corpus_key: tuple[int, int] | None = None  # (registry version, vector count) it was read at
        self._lexical_owed = False  # an earlier ingest stopped before saving the BM25 index: save it at the end
        self._changing: str | None = None  # the version token this process's ingest left when it began to change papers
        self._changes = _Changes()  # what this process's ingest changed, to update the vector cache from
        self._follow_seconds = storage.follow_seconds
        self._storage = storage
        self._followed = -float("inf")  # when a client of a server last compared its registry with the server's records
        self._migrated = False  # whether this store's registry is known to be lined up with paper records
        self._sentences: SentenceVectors | None = None
        self._adopt(embed, chunk)
        self.vectors.refuse(self._mismatch(cached=True))

    @classmethod
    def open(cls, settings: Settings, cache: Path | None = None) -> Store:
        """The store `settings` name (its folder, or a Chroma server with the registry in the folder)."""
        sections = (settings.storage, settings.embed, settings.chunk, settings.lexical)
        return cls(settings.store, settings.chroma_url, *sections, cache=cache)

    def _created(self) -> bool:
        """Whether a writer has created the local vector store: it tags the registry with the
        fingerprint after creating it (stores older than that tag have papers). Until then readers
        see an empty store instead of opening Chroma while a writer may be creating it."""
        return self.registry.get_meta(REGISTRY_KEY) is not None or self.registry.count() > 0

    # --- The fingerprint: checked here only ---

    def _adopt(self, embed: EmbedSettings, chunk: ChunkSettings) -> None:
        """With embed.precision 'auto', read and extend the store in the precision it was built with
        (its fingerprint says which): the registry's tag, or, when the registry has none (a new client of
        a server, a store from before the tag), the collection's."""
        if embed.precision != "auto":
            return
        built = self.registry.get_meta(REGISTRY_KEY)
        if built is None and (not self._local or self.registry.count()):
            built = self.vectors.stored()[1]
        pinned = adopted(embed, chunk, built)
        if pinned is not embed:
            self._pin(pinned)

    def _pin(self, embed: EmbedSettings) -> None:
        """Read and write the store with `embed` (a precision set in place of 'auto') from now on."""
        self.embed = embed
        self.fingerprint = index_fingerprint(embed, self.chunk)
        self._described = describe_fingerprint(embed, self.chunk)
        self.vectors.tag(self.fingerprint)

    def unbuilt_auto(self) -> bool:
        """Whether this is a store nothing was built in yet, whose precision is 'auto': the ingest that builds
        it decides the precision (`build_in`). A store built before keeps the precision it was built with."""
        if self.embed.precision != "auto" or self.registry.get_meta(REGISTRY_KEY) is not None:
            return False
        return not self.registry.count() and (self._local or self.vectors.stored()[1] is None)

    def build_in(self, measure: Callable[[], Precision]) -> None:
        """Build this new store (`unbuilt_auto`) in the precision `measure` gives, the one this machine embeds
        faster (bot.embedder.Embedder.faster_precision, asked only for such a store); its fingerprint says so,
        so that every later reader and ingest with 'auto' adopts it. Does nothing to a store built before."""
        if self.unbuilt_auto():
            self._pin(self.embed.model_copy(update={"precision": measure()}))

    def _mismatch(self, cached: bool = False) -> FingerprintError | None:
        """The refusal for a store built with other settings; with `cached`, a vector cache of this
        version and fingerprint stands for Chroma's own count and tag (a reader then needs no Chroma)."""
        registered = (self.registry.count(), self.registry.get_meta(REGISTRY_KEY))
        count = self._cached_count(self.registry.version()) if cached else None
        stored = self.vectors.stored() if count is None else (count, self.fingerprint)
        return mismatch(
            self.fingerprint, self._described, self.vectors.location, self.vectors.collection, stored, registered
        )

    def prepare_write(self, rebuild: bool) -> list[str]:
        """Before an ingest writes (inside `writing`): for a rebuild, drop every vector (the papers stay in
        the registry, to be embedded again), else refuse a store built with other settings
        (FingerprintError); then tag it with the current fingerprint.

        Returns what it found to repair, for the ingest's report: a BM25 index missing or older than
        the registry (an ingest killed between its last commit and saving the index) is rebuilt when
        `writing` ends, whatever the ingest changes.
        """
        notes: list[str] = []
        if rebuild:
            # The papers stay in the registry, which the ingest embeds again from; until one has ended, the
            # records in Chroma are fewer than them and are not pulled over them (`_line_up`).
            self.registry.write(meta={_REBUILDING_KEY: "1", records.SYNCED_KEY: ""})  # a new version: no old cache
            self.vectors.reset()
        else:
            error = self._mismatch()
            self.vectors.refuse(error)
            if error is not None:
                raise error
            moved = self._line_up(notes)
            if self.registry.count() and self.saved_lexical() is None:
                self._lexical_owed = True
            if self._lexical_owed and not moved:
                notes.append(
                    f"the BM25 index in {self.paths.lexical} did not match the stored papers (an earlier ingest "
                    "stopped before saving it); rebuilt it"
                )
                log.info("%s", notes[-1])  # the ingest reports it as a warning
        self.registry.set_meta(REGISTRY_KEY, self.fingerprint)
        return notes

    def finish_rebuild(self) -> None:
        """After an ingest that embedded every stored paper: a rebuild it began, or one an earlier run
        began and stopped, is over, and the records are brought in line as after any write."""
        if self.registry.get_meta(_REBUILDING_KEY):
            self.registry.set_meta(_REBUILDING_KEY, "")

    # --- The registry and the paper records in Chroma (bot.store.records) ---

    def _line_up(self, notes: list[str]) -> bool:
        """Before a write: pull the records into the registry when another client (or a run killed
        mid-way) wrote since this registry was brought in line; push the registry into them when the
        store is from before paper records (adding a note for the ingest's report). Returns whether
        the registry changed (its BM25 index is then rebuilt when the write ends)."""
        if self.registry.get_meta(_REBUILDING_KEY):
            return False  # a rebuild stopped part way: the registry holds every paper, the records only some
        token = self.vectors.record_version()
        if token is None:
            if self.registry.count() and records.push(self.vectors, self.registry):
                self._mark_written(records.new_token())
                notes.append(f"copied the paper registry into the paper records in {self.vectors.location}")
            return False
        if token == self.registry.get_meta(records.SYNCED_KEY):
            return False
        moved = records.pull(self.vectors, self.registry, token) > 0
        self._lexical_owed = self._lexical_owed or moved
        return moved

    def _migrate(self) -> None:
        """On the first read of a store from before paper records (its registry has papers but was
        never lined up with records), copy the registry into them, when this process may write and no
        ingest is writing (else the next ingest does it)."""
        if self.read_only or self._migrated or not self.registry.count():
            return
        self._migrated = self.registry.get_meta(records.SYNCED_KEY) is not None
        if self._migrated:
            return
        try:
            with self.writing():
                notes: list[str] = []
                self._line_up(notes)
                log.info("%s", "; ".join(notes) or "the paper records were already there")
            self._migrated = True
        except (StoreError, OSError) as exc:
            log.info("left the paper records for the next ingest to copy: %s", exc)

    def _follow(self) -> None:
        """For a client of a Chroma server: pull the records when another client has written since
        (asked at most once a second); an embedded store's registry is written by its own writers."""
        if self._local or time.monotonic() - self._followed < self._follow_seconds:
            return
        with self.lock:
            token = self.vectors.record_version()
            self._followed = time.monotonic()
            if token is None or token == self.registry.get_meta(records.SYNCED_KEY):
                return
            if self.read_only:
                log.warning(
                    "the store folder %s is read-only: it cannot follow the papers on %s",
                    self.paths.folder,
                    self.vectors.location,
                )
                return
            records.pull(self.vectors, self.registry, token)

    def _begin_change(self) -> None:
        """Before this ingest's first change: leave a new token, so that a client reading the records
        meanwhile, or after a crash, reads them again."""
        if self._changing is None:
            self._changes = _Changes(self._cache_base(), self.registry.version() if self._local else None)
            self._changing = records.new_token()
            self.vectors.set_record_version(self._changing)

    def _end_change(self) -> None:
        """After an ingest's changes: leave a new token; the registry is in line with it unless another
        client wrote meanwhile (then the next write or read pulls)."""
        if self._changing is None:
            return
        alone = self.vectors.record_version() == self._changing
        self._changing = None
        token = records.new_token()
        self.vectors.set_record_version(token)
        self.registry.set_meta(records.SYNCED_KEY, token if alone else "")

    def _mark_written(self, token: str) -> None:
        self.vectors.set_record_version(token)
        self.registry.set_meta(records.SYNCED_KEY, token)

    # --- Papers, reading lists and the write lock ---

    def papers(self) -> Mapping[str, Paper]:
        """Every stored paper by id."""
        self._follow()
        return self.registry.papers()

    def labels(self) -> dict[str, str]:
        """{paper id: label} of every stored paper, without reading the papers (ingest's new labels;
        the ingest followed a server's records when it began)."""
        return self.registry.labels()

    def paper_count(self) -> int:
        self._follow()
        return self.registry.count()

    def version(self) -> int:
        """The registry version: it moves with every write, from this process or another (and, for a
        client of a server, with every write by another client)."""
        self._follow()
        return self.registry.version()

    @property
    def lists(self) -> ReadingLists:
        """The store's reading lists (opened on first use, on the registry's connection)."""
        with self.lock:
            if self._lists is None:
                self._lists = ReadingLists(self.registry.database)
            return self._lists

    def follow_moved(self, moved: dict[str, str]) -> None:
        """Point reading-list entries at the ids that took their papers' places (ingest's plan);
        a store without lists is left without them."""
        if moved and has_tables(self.registry.database):
            self.lists.follow(moved)

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the store for writing: this process's readers wait, another writer raises StoreError,
        a read-only store raises StoreReadOnly. Only now may the vector store be created."""
        if self.read_only:
            raise failures.read_only(self.paths.folder, "ingest cannot write to it")
        with self.lock, storelock.writing(self.paths.folder):
            self.vectors.may_create = True
            done = False
            try:
                yield
                if self._lexical_owed:
                    self.refresh_lexical()
                done = True
            finally:
                try:
                    self._end_change()
                except Exception:
                    if done:
                        raise
                    log.warning("could not leave a version token on the paper records", exc_info=True)
                finally:
                    self.vectors.may_create = False
                    self._lexical_owed = False
                    self._changes = _Changes()

    def writer(self) -> str | None:
        """Who is writing to the store now ('pid 4242 on laptop'), or None."""
        return storelock.writer(self.paths.folder)

    # --- Writes, for ingest (inside `writing`) ---

    def vector_paper_ids(self) -> set[str]:
        """Ids of the papers that have at least one chunk vector stored: from the vector cache of this
        version when it holds as many vectors as Chroma (at 100,000 papers reading every chunk's
        metadata from Chroma took 8 s of a 100-paper ingest), else from Chroma."""
        base = self._cache_base()
        rows = self._own_cache(*base).rows(base[1]) if base else None
        return set(np.unique(rows.paper_ids).tolist()) if rows is not None else self.vectors.paper_ids()

    def write_papers(
        self,
        papers: Sequence[Paper],
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        replacing: Sequence[str],
    ) -> None:
        """Replace these papers' chunk vectors, then register the papers: vectors first, so that a
        crash between the two leaves orphan vectors (overwritten by the next run), never a paper without them.
        The old chunks of `replacing` (those of `papers` that had vectors) are deleted first: an edited
        paper may have had more chunks. A paper with no vectors stored needs none deleted, which saves
        ingest a lookup per paper that grows with the collection."""
        self._begin_change()
        self._changes.wrote(papers, chunks)
        self.vectors.delete_papers(replacing)
        self.vectors.upsert(chunks, vectors, {p.paper_id: p.label for p in papers})
        records.put(self.vectors, papers, chunks, vectors)
        self.registry.write(upsert=papers)

    def update_papers(self, papers: Sequence[Paper]) -> None:
        """Store new metadata or sources of papers whose vectors stay as they are."""
        self._begin_change()
        self._changes.edited(papers)
        records.update(self.vectors, papers)
        self.registry.write(upsert=papers)

    def remove_papers(self, paper_ids: Sequence[str]) -> None:
        """Forget papers: the registry and their records first, then their vectors."""
        self._begin_change()
        self._changes.removed(paper_ids)
        self.registry.write(delete=paper_ids)
        self.vectors.delete_records(paper_ids)
        self.vectors.delete_papers(paper_ids)

    def refresh_lexical(self) -> None:
        """Rebuild and save the BM25 index for the registry's current content (a full disk: DiskFull,
        the index saved before kept): from the index saved before this ingest's changes, cutting only
        the papers it changed into terms, when there is one (LexicalIndex.updated), else from every
        paper's text."""
        papers = self.registry.papers()
        index = self._updated_lexical(papers) or lexical_index(papers, self.bm25)
        try:
            index.save(self.paths.lexical, self.registry.version())
        except OSError as exc:
            clear = failures.translate(exc, self.paths.folder, "ingest cannot save the BM25 index")
            if clear is None:
                raise
            raise clear from exc
        self._lexical_owed = False

    def _updated_lexical(self, papers: Mapping[str, Paper]) -> LexicalIndex | None:
        """The BM25 index of `papers` updated from the one saved at the version this ingest began at,
        None when there is none to update (then every paper is cut into terms again)."""
        base, touched = self._changes.lexical_base, self._changes.texts
        if base is None or self._lexical_owed:
            return None
        started = time.perf_counter()
        wanted = sorted(pid for pid in touched if pid in papers)
        changed = {p.paper_id: p.searchable_text() for p in read_many(papers, wanted)}
        try:
            index = LexicalIndex.updated(self.paths.lexical, base, self.bm25, sorted(papers), changed)
        except Exception as exc:  # any failure: the full build follows, as before there were updates
            log.warning("could not update the BM25 index (%s); building it from every paper", exc)
            return None
        if index is not None:
            log.info(
                "updated the BM25 index (%d papers cut again) in %.1f s", len(changed), time.perf_counter() - started
            )
        return index

    def cache_vectors(self) -> None:
        """After an ingest changed papers: keep every chunk vector of the new version in the vector
        cache, so no reader reads them from Chroma (at 100,000 papers a reader's first search took 30 s
        that way, with Chroma's whole index in its memory; at a million, 149-164 s and 10 GB;
        docs/scale.md). When the version before has a cache, the new one is that file with the
        changed papers' rows replaced (bot.store.cacheupdate), reading from Chroma only the vectors
        this ingest wrote; else every vector is read, except for a store searched through Chroma's
        index (its next reader writes the cache). Failing only costs the next reader that read."""
        try:
            version, count = self.registry.version(), self.vectors.count()
            if self._update_cache(version, count) or not self._reads_exactly(self.registry.count()):
                return
            self._chunk_vectors(version, count)
        except StoreError as exc:
            log.warning("could not keep the vectors for the next reader (%s); its first search reads them", exc)

    def _cache_base(self) -> tuple[int, int] | None:
        """Before an ingest's first change to a local store: its (version, vector count) when a vector
        cache of that version is beside it, for `_update_cache`; None otherwise (a server's store)."""
        version = self.registry.version()
        count = self._cached_count(version)  # None for a server's store
        return (version, count) if count is not None and count == self.vectors.count() else None

    def _own_cache(self, version: int, count: int) -> VectorCache:
        """The vector cache of `version` (with `count` vectors) in the store's own folder, as ingest keeps it."""
        return VectorCache(self.paths.folder, VectorCache.key(version, count, self.fingerprint))

    def _update_cache(self, version: int, count: int) -> bool:
        """Write the cache of `version` from the cache of the version this ingest began at and the
        vectors it wrote; False when there is no such cache (or it cannot be used)."""
        base = self._changes.base
        if base is None:
            return False
        started = time.perf_counter()
        old, new = self._own_cache(*base), self._own_cache(version, count)
        try:
            added = self.vectors.chunk_vectors(self._changes.chunk_ids)
            if added is None or not cacheupdate.update(old, new, self._changes.papers, added, count):
                return False
        except Exception as exc:  # Chroma's own errors, memory: the whole read follows, as without a base
            log.warning("could not update the vector cache (%s); reading every vector instead", exc)
            return False
        log.info(
            "updated the vector cache (%d rows written again) in %.1f s",
            len(added.chunk_ids),
            time.perf_counter() - started,
        )
        return True

    # --- Reads of a whole store version ---

    def saved_lexical(self) -> LexicalIndex | None:
        """The BM25 index saved for the current version (for a read-only store, in its cache folder
        too), None when there is none (yet)."""
        return self._load_lexical(self.registry.version())

    def _load_lexical(self, version: int) -> LexicalIndex | None:
        found = LexicalIndex.load(self.paths.lexical, version, self.bm25)
        if found is None and self.read_only:
            found = LexicalIndex.load(self.saves.lexical, version, self.bm25)
        return found

    @property
    def _cache_folders(self) -> list[Path]:
        """Where vector caches are looked for: beside the store, then (a read-only store) its cache folder."""
        return list(dict.fromkeys([self.paths.folder, self.saves.folder]))

    def _cached_count(self, version: int) -> int | None:
        """The vector count of the vector cache kept for `version` (local stores only), None without one."""
        if not self._local:
            return None  # a server's vectors may change without the registry: ask it
        for folder in self._cache_folders:
            count = VectorCache.find(folder, version, self.fingerprint)
            if count is not None:
                return count
        return None

    def corpus(self) -> Corpus:
        """Every paper, the BM25 index and all chunk vectors in memory; re-read when the store changes."""
        self._migrate()
        self._follow()
        with self.lock:
            self.vectors.check()
            version = self.registry.version()
            cached = self._cached_count(version)
            key = (version, self.vectors.count() if cached is None else cached)
            if self._corpus is None or self._corpus_key != key:
                started = time.perf_counter()
                papers = self.registry.papers()  # re-read: another process may have ingested since
                lexical = self._load_lexical(version)
                if lexical is None:  # an ingest is under way, stopped before it saved the index, or k1/b changed
                    lexical = lexical_index(papers, self.bm25)
                    self._save_lexical(lexical, key[0])
                    lexical.terms = None  # saved for the next ingest; a reader does not need them
                busy = self.writer() if not papers else None
                if busy is not None:
                    raise StoreError(
                        f"the store in {self.paths.folder} is still empty: an ingest ({busy}) is filling "
                        "it; try again when it finishes"
                    )
                self._corpus = Corpus.build(key[0], papers, lexical, self._dense(len(papers), key))
                self._corpus_key = key
                log.info("read %d papers' vectors in %.1f s", len(papers), time.perf_counter() - started)
            return self._corpus

    def _dense(self, papers: int, key: tuple[int, int]) -> ChunkVectors | Callable[[list[str]], DenseVectors]:
        """Every chunk vector (the exact path), or, for a large store or dense_index 'approximate', what
        searches through Chroma's index and reads every vector only when asked to (bot.store.nearest)."""
        storage = self._storage
        if self._reads_exactly(papers):
            return self._chunk_vectors(*key)

        def nearest(order: list[str]) -> DenseVectors:
            return NearestVectors(
                order,
                self.vectors,
                lambda: PaperVectors(self._chunk_vectors(*key), order),
                storage.approximate_chunks,
                storage.approximate_lexical,
                storage.approximate_sample,
                storage.approximate_papers,
                self._cached_rows(*key) if self._local and storage.approximate_papers > 0 else None,
            )

        return nearest

    def _reads_exactly(self, papers: int) -> bool:
        """Whether readers of a store of `papers` papers score every chunk vector held in memory
        (`storage.dense_index`), rather than search through Chroma's index."""
        mode = self._storage.dense_index
        return mode == "exact" or (mode == "auto" and papers < self._storage.approximate_from)

    def _chunk_vectors(self, version: int, count: int) -> ChunkVectors:
        """Every chunk vector: from the copy beside the store (or in a read-only store's cache folder)
        when there is one for this version, else from Chroma (then copied there, unless an ingest
        wrote meanwhile)."""
        key = VectorCache.key(version, count, self.fingerprint)
        for folder in self._cache_folders:
            chunks = VectorCache(folder, key).load(count)
            if chunks is not None:
                return chunks
        chunks = self.vectors.all_vectors()  # in paper order (ChunkVectors.gather)
        if len(chunks.chunk_ids) == count:
            VectorCache(self.saves.folder, key).save(chunks)
        return chunks

    def _cached_rows(self, version: int, count: int) -> CachedRows | None:
        """Every chunk vector, read a paper at a time from the cache beside the store, which the first
        reader of this version writes (reading them all from Chroma once, as the exact path does); None
        when it cannot be written (then candidates come from Chroma's chunk index)."""
        key = VectorCache.key(version, count, self.fingerprint)
        for folder in self._cache_folders:
            rows = VectorCache(folder, key).rows(count)
            if rows is not None:
                return rows
        log.info("reading every chunk vector once, to keep them beside the store for the next readers")
        target = VectorCache(self.saves.folder, key)
        if not self._stream_vectors(target, count):
            self._chunk_vectors(version, count)
        release_memory()
        return target.rows(count)

    def _stream_vectors(self, target: VectorCache, count: int) -> bool:
        """Write every chunk vector into `target` a page at a time as Chroma gives them, never holding
        them all (the cache the approximate path reads); False when that cannot be done (ids of
        another shape, a chunk without its record, another process's write), for the caller to read
        them whole instead."""
        try:
            read = self.vectors.vector_pages()
            if read is None or len(read[0]) != count:
                return False
            chunk_ids, paper_ids, pages = read
            first = next(pages)
            with_first = itertools.chain([first], pages)
            target.folder.mkdir(parents=True, exist_ok=True)  # a read-only store's cache folder may be new
            cacheupdate.write_rows(
                target, np.array(chunk_ids, dtype=str), np.array(paper_ids, dtype=str), first.shape[1], with_first
            )
        except Exception as exc:  # any failure, Chroma's own included: the whole read follows, as before
            log.info("could not write the vector cache page by page (%s); reading every vector first", exc)
            return False
        return True

    def _save_lexical(self, lexical: LexicalIndex, version: int) -> None:
        """Save an index built by a reader, unless an ingest is writing (it saves its own when done);
        a read-only store's goes to its cache folder. Failing to save (a full disk) only costs the
        next reader the rebuild."""
        try:
            if self.read_only:
                lexical.save(self.saves.lexical, version)
                return
            with self.writing():
                if self.registry.version() == version:
                    lexical.save(self.paths.lexical, version)
        except DiskFull as exc:
            log.warning("could not save the BM25 index: %s; it is kept in memory only", exc)
        except StoreError:
            log.info("an ingest is writing to the store; the BM25 index is kept in memory only")
        except OSError as exc:
            log.warning("could not save the BM25 index (%s); it is kept in memory only", exc)

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
        for paper, positions in zip(read_many(papers, list(wanted)), wanted.values(), strict=True):
            chunks = chunking.paper_chunks(paper, self.chunk)
            found.update({cid: chunks[i].text for cid, i in positions if i < len(chunks)})
        return found

    def sentences(self) -> SentenceVectors:
        """The kept vectors of abstract sentences (bot.store.sentences), in the folder readers save into."""
        if self._sentences is None:
            self._sentences = SentenceVectors(self.saves.sentences, sentence_table(self.embed))
        return self._sentences

    def close(self) -> None:
        """Close the registry's connection (the lists share it) and the sentence vectors' file."""
        self.registry.close()
        if self._sentences is not None:
            self._sentences.close()


class _Changes:
    """What one ingest changed in a local store: the papers whose text may have changed, for the BM25
    index's update (Store.refresh_lexical), and the papers it wrote or removed with the chunks it
    wrote, for the vector cache's (Store.cache_vectors). The latter are kept only when the store's
    version before it has a vector cache, and only up to `LIMIT` chunks: the update reads the new
    ones into memory (each 1.5 KB), so a larger ingest reads every vector as it did before."""

    LIMIT = 250_000

    def __init__(self, base: tuple[int, int] | None = None, lexical_base: int | None = None) -> None:
        self.base = base  # (registry version, vector count) of the cache to update; None: nothing kept
        self.papers: set[str] = set()
        self.chunk_ids: list[str] = []
        self.lexical_base = lexical_base  # the registry version whose saved BM25 index can be updated
        self.texts: set[str] = set()  # papers whose searchable text may have changed (written, edited, removed)

    def edited(self, papers: Sequence[Paper]) -> None:
        """Papers whose metadata changed (their title, so their searchable text, may have)."""
        self.texts.update(p.paper_id for p in papers)

    def wrote(self, papers: Sequence[Paper], chunks: Sequence[Chunk]) -> None:
        self.texts.update(p.paper_id for p in papers)
        if self.base is not None:
            self.papers.update(p.paper_id for p in papers)
            self.chunk_ids.extend(c.chunk_id for c in chunks)
            if len(self.chunk_ids) > self.LIMIT:  # too many to read back: keep nothing
                self.base, self.papers, self.chunk_ids = None, set(), []

    def removed(self, paper_ids: Sequence[str]) -> None:
        self.texts.update(paper_ids)
        if self.base is not None:
            self.papers.update(paper_ids)
