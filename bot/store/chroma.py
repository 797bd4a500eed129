"""The one owner of chromadb: chunk vectors in an embedded store or a Chroma server.

It stores and queries vectors with their chunk metadata. The embedded store is opened on first use:
created only by a writer holding the store's write lock (two processes creating it at once break
Chroma's schema), read only once a writer has created it, and read from a private copy when the
store may not be written. It does not embed text, rank papers, know the lexical index or judge the
fingerprint it is tagged with (bot.store.store does).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import numpy as np

from bot.errors import FingerprintError, StoreError, StoreUnavailable
from bot.store import failures, readonly
from bot.store.fingerprint import COLLECTION_KEY
from bot.store.paths import StorePaths
from bot.store.vectors import ChunkVectors, release_memory
from bot.text import chunking
from bot.types import Chunk

if TYPE_CHECKING:
    import chromadb

# chromadb is imported when a collection is first opened, not with this module: importing it takes
# about 0.6 s (docs/performance.md), and a search of an embedded store reads its vectors from the
# registry's cache without asking Chroma.

log = logging.getLogger(__name__)
# Results per Chroma query call; past ~32k its SQLite runs out of variables.
_MAX_RESULTS_PER_CALL = 16_000
# The collection of paper records is named after the chunk collection, with this suffix.
RECORDS_SUFFIX = "-papers"
# The records collection's metadata key for the version token every write leaves.
VERSION_KEY = "paperbot_version"


@dataclass(frozen=True)
class ChunkMatch:
    """A chunk near a query vector."""

    chunk_id: str
    paper_id: str
    similarity: float  # cosine similarity, 1 - cosine distance


def _client(path: Path, url: str | None) -> chromadb.ClientAPI:
    """A client of the embedded store in `path` (a store folder, or the cache folder of its copy) or of a server."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    if url is None:
        folder = StorePaths(path).chroma
        try:
            return chromadb.PersistentClient(path=str(folder), settings=settings)
        except Exception as exc:  # chromadb raises several kinds for an unusable folder
            clear = failures.translate(exc, path, None, compaction=True)
            if clear is not None:
                raise clear from exc
            raise StoreError(
                f"cannot open the Chroma store in {folder}: {exc}; check the folder, or choose another with --store"
            ) from exc
    parsed = urlparse(url if "://" in url else f"http://{url}")
    if not parsed.hostname:
        raise StoreError(f"--chroma-url {url!r} is not a URL; use e.g. http://127.0.0.1:8000")
    try:
        client = chromadb.HttpClient(
            host=parsed.hostname,
            port=parsed.port or (443 if parsed.scheme == "https" else 8000),
            ssl=parsed.scheme == "https",
            settings=settings,
        )
        client.heartbeat()
    except Exception as exc:
        raise StoreUnavailable(
            f"cannot reach the Chroma server at {url} ({exc}); start one with "
            "`chroma run --path DIR --host 127.0.0.1 --port 8000`, or drop --chroma-url to use "
            "the local store"
        ) from exc
    return client


# Pages of vectors read between two returns of freed memory to the system (`release_memory`).
_TRIM_EVERY = 10


def _paper_order(chunk_ids: list[str]) -> tuple[list[str], list[str]] | None:
    """The chunk ids in the order a corpus reads them (by paper id, a paper's chunks by position) and
    each one's paper id; None when an id is not of ingest's shape (`chunking.chunk_id`).

    Example: ["b-0", "a-1", "a-0"] -> (["a-0", "a-1", "b-0"], ["a", "a", "b"])
    """
    named = [chunking.parse_chunk_id(chunk_id) for chunk_id in chunk_ids]
    if any(n is None for n in named):
        return None
    ordered = sorted(zip(named, chunk_ids, strict=True))  # type: ignore[type-var]
    return [chunk_id for _, chunk_id in ordered], [name[0] for name, _ in ordered]  # type: ignore[index]


def _pages(collection: Any, ids: list[str], page: int) -> Iterator[tuple[list[str], list[str], np.ndarray]]:
    """The stored chunks among `ids`, `page` ids a request: each page's chunk ids, their paper ids (from
    their records) and vectors, leaving out chunks without a record (a write cut short)."""
    for start in range(0, len(ids), page):
        got = collection.get(ids=ids[start : start + page], include=["embeddings", "metadatas"])
        metas = got.get("metadatas") or []
        vectors = got.get("embeddings")
        rows = [i for i, m in enumerate(metas) if m]
        if rows and vectors is not None:
            owners = [str(metas[i]["paper_id"]) for i in rows]
            yield [got["ids"][i] for i in rows], owners, np.asarray(vectors, dtype=np.float32)[rows]


def _by_id(collection: Any, ids: list[str], page: int) -> dict[str, np.ndarray]:
    """{chunk id: vector} of the stored chunks among `ids` that have a record, read `page` ids a request."""
    return {
        chunk_id: row
        for found, _, block in _pages(collection, ids, page)
        for chunk_id, row in zip(found, block, strict=True)
    }


class VectorStore:
    """One Chroma collection of chunk vectors, tagged with the index fingerprint it is created with,
    and beside it the collection of paper records (`<collection>-papers`: each paper's stored text,
    label and metadata as bot.store.registry's `to_record` makes them, with the paper's mean chunk
    vector), whose metadata carries the version token of the last write.

    A server is reached at once (StoreUnavailable when it does not answer). The embedded store in
    `path` is opened on first use: by a writer (`may_create`, set by the store while it holds the
    write lock) even when it does not exist yet; by a reader only once `ready()` says a writer has
    created it, an empty store until then; from a copy in `cache` when `cache` is given (the store
    may only be read).
    """

    def __init__(
        self,
        path: Path,
        url: str | None,
        collection: str,
        fingerprint: str,
        ready: Callable[[], bool] = lambda: True,
        cache: Path | None = None,
    ) -> None:
        self._path, self._url = path, url
        self.location = url or str(StorePaths(path).chroma)
        self.collection = collection
        self._fingerprint = fingerprint
        self._ready = ready
        self._cache = cache
        self.may_create = False
        self._client: chromadb.ClientAPI | None = None
        self._collection: chromadb.Collection | None = None
        self._records: chromadb.Collection | None = None
        # Set by the store when the fingerprint does not match; kept, not raised on opening, so that
        # `ingest --rebuild` can open the store to reset it.
        self._refusal: FingerprintError | None = None
        if url is not None:
            self._connect()

    def _connect(self) -> chromadb.Collection:
        where = self._path
        if self._url is None and self._cache is not None:
            readonly.chroma_copy(self._path, self._cache)
            where = self._cache
        self._client = _client(where, self._url)
        with self._clear_failure(None):
            self._collection = self._client.get_or_create_collection(
                name=self.collection,
                metadata={"hnsw:space": "cosine", COLLECTION_KEY: self._fingerprint},
                embedding_function=None,
            )
            self._records = self._records_collection()
        return self._collection

    def _records_collection(self) -> chromadb.Collection:
        """The records collection as the server (or the embedded store) has it now, metadata included."""
        assert self._client is not None
        return self._client.get_or_create_collection(
            name=self.collection + RECORDS_SUFFIX,
            metadata={"hnsw:space": "cosine", COLLECTION_KEY: self._fingerprint},
            embedding_function=None,
        )

    def _opened(self) -> chromadb.Collection | None:
        """The collection, opened now if it may be; None while no writer has created the embedded store."""
        if self._collection is not None:
            return self._collection
        created = (StorePaths(self._path).chroma / "chroma.sqlite3").is_file() and self._ready()
        if self._url is None and not self.may_create and not created:
            return None
        return self._connect()

    def _written(self) -> chromadb.Collection:
        """The collection for a write, which only the holder of the store's write lock makes."""
        collection = self._usable()
        if collection is None:
            raise StoreError(f"the vectors in {self.location} are written only while holding the store's write lock")
        return collection

    def _raise_clear(self, exc: Exception, what: str | None) -> None:
        """Raise the StoreError a full disk (or a read-only file) behind Chroma's `exc` stands for, if it is one."""
        clear = failures.translate(exc, self._cache or self._path, what, compaction=True)
        if clear is not None:
            raise clear from exc

    @contextmanager
    def _clear_failure(self, what: str | None) -> Iterator[None]:
        """Turn Chroma's words for a full disk (or a read-only file) into the StoreError that says so;
        `what` names the write (None: a read, which in Chroma may write too)."""
        try:
            yield
        except StoreError:
            raise
        except Exception as exc:
            self._raise_clear(exc, what)
            raise

    def stored(self) -> tuple[int, str | None]:
        """(vectors held, the fingerprint the collection was created with), read even when refused."""
        collection = self._opened()
        if collection is None:
            return 0, None
        with self._clear_failure(None):
            return int(collection.count()), (collection.metadata or {}).get(COLLECTION_KEY)

    def tag(self, fingerprint: str) -> None:
        """The fingerprint a collection created from now on is tagged with (the store adopted the one
        it was built with)."""
        self._fingerprint = fingerprint

    def refuse(self, error: FingerprintError | None) -> None:
        """Raise `error` on every later read or write (None: serve them again)."""
        self._refusal = error

    def check(self) -> None:
        """Raise the refusal the store set, if any (for reads served without Chroma)."""
        if self._refusal is not None:
            raise self._refusal

    def _usable(self) -> chromadb.Collection | None:
        """The collection (None: nothing stored yet), unless the store refused it (built with other settings)."""
        self.check()
        return self._opened()

    def reset(self) -> None:
        """Drop every vector (for --rebuild) and serve reads and writes again."""
        self._refusal = None
        self._written()
        assert self._client is not None
        with self._clear_failure("ingest cannot rebuild it"):
            for name in (self.collection, self.collection + RECORDS_SUFFIX):
                if name in {c.name for c in self._client.list_collections()}:
                    self._client.delete_collection(name)
        self._connect()

    def count(self) -> int:
        collection = self._usable()
        if collection is None:
            return 0
        with self._clear_failure(None):
            return int(collection.count())

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray, labels: dict[str, str]) -> None:
        """Write chunks with their vectors; re-writing the same ids replaces them."""
        if not chunks:
            return
        # No `documents`: Chroma would index every chunk's text for full-text search, which paperbot
        # never uses (BM25 is bot.store.lexical), and that costs 60% of the write (docs/ingest.md). The
        # registry keeps each paper's text; its chunks are cut again when needed.
        collection = self._written()
        with self._clear_failure("ingest cannot add vectors"):
            collection.upsert(
                ids=[c.chunk_id for c in chunks],
                embeddings=vectors,
                metadatas=[
                    {"paper_id": c.paper_id, "position": c.position, "label": labels.get(c.paper_id, "")}
                    for c in chunks
                ],
            )

    # --- Paper records: the system of record ---

    def _written_records(self) -> chromadb.Collection:
        self._written()
        assert self._records is not None
        return self._records

    def record_version(self) -> str | None:
        """The version token the last write left on the records, read afresh (another client may have
        written since); None before any write has left one (a store from before paper records)."""
        if self._usable() is None:
            return None
        with self._clear_failure(None):
            self._records = self._records_collection()
        value = (self._records.metadata or {}).get(VERSION_KEY)
        return None if value is None else str(value)

    def set_record_version(self, token: str) -> None:
        """Leave `token` on the records: every client reading them sees that the store changed."""
        records = self._written_records()
        with self._clear_failure("ingest cannot mark the papers it wrote"):
            records.modify(metadata={COLLECTION_KEY: self._fingerprint, VERSION_KEY: token})

    def put_records(self, records: dict[str, dict[str, str]], vectors: np.ndarray) -> None:
        """Write paper records (id -> record) with one vector each (rows in `records` order)."""
        if not records:
            return
        collection = self._written_records()
        with self._clear_failure("ingest cannot add papers"):
            collection.upsert(ids=list(records), embeddings=vectors, metadatas=list(records.values()))  # type: ignore[arg-type]

    def update_records(self, records: dict[str, dict[str, str]]) -> set[str]:
        """Replace the records of papers already there, keeping their vectors; returns the ids that
        were not there (their records need `put_records`)."""
        if not records:
            return set()
        collection = self._written_records()
        with self._clear_failure("ingest cannot update papers"):
            present = set(collection.get(ids=list(records), include=[])["ids"])
            if present:
                ids = [pid for pid in records if pid in present]
                collection.update(ids=ids, metadatas=[records[pid] for pid in ids])  # type: ignore[misc]
        return set(records) - present

    def delete_records(self, paper_ids: Sequence[str]) -> None:
        if not paper_ids:
            return
        collection = self._written_records()
        for start in range(0, len(paper_ids), 500):
            with self._clear_failure("ingest cannot remove papers"):
                collection.delete(ids=list(paper_ids[start : start + 500]))

    def record_count(self) -> int:
        if self._usable() is None:
            return 0
        assert self._records is not None
        with self._clear_failure(None):
            return int(self._records.count())

    def records(self, page: int = 2000) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every paper record (id, record), read in pages."""
        if self._usable() is None:
            return
        assert self._records is not None
        offset = 0
        while True:
            with self._clear_failure(None):
                got = self._records.get(include=["metadatas"], limit=page, offset=offset)
            metas = got.get("metadatas") or []
            for paper_id, meta in zip(got["ids"], metas, strict=True):
                if meta:
                    yield paper_id, dict(meta)
            if len(got["ids"]) < page:
                return
            offset += page

    def paper_vectors(self, paper_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The chunk vectors of each of these papers (papers without any are left out)."""
        return {pid: matrix for pid, (_, matrix) in self.paper_chunks(paper_ids).items()}

    def paper_chunks(self, paper_ids: Sequence[str]) -> dict[str, tuple[list[str], np.ndarray]]:
        """The chunk ids and vectors (rows in that order) of each of these papers; papers without any are left out."""
        found: dict[str, tuple[list[str], list[np.ndarray]]] = {}
        collection = self._usable()
        if collection is None:
            return {}
        for start in range(0, len(paper_ids), 500):
            batch = list(paper_ids[start : start + 500])
            with self._clear_failure(None):
                got = collection.get(where={"paper_id": {"$in": batch}}, include=["embeddings", "metadatas"])  # type: ignore[dict-item]
            metas, vectors = got.get("metadatas") or [], got.get("embeddings")
            if vectors is None:
                continue
            for chunk_id, meta, vector in zip(got["ids"], metas, vectors, strict=True):
                if meta:
                    ids, rows = found.setdefault(str(meta["paper_id"]), ([], []))
                    ids.append(chunk_id)
                    rows.append(np.asarray(vector, dtype=np.float32))
        return {pid: (ids, np.stack(rows)) for pid, (ids, rows) in found.items()}

    def delete_papers(self, paper_ids: Sequence[str]) -> None:
        """Remove every chunk of these papers. Only papers whose first chunk is stored are searched for
        by metadata: that search grows with the collection (a fifth of ingest's time 30,000 papers into
        a million-paper ingest, which asked it for every new paper); a lookup by chunk id does not."""
        if not paper_ids:
            return
        collection = self._written()
        for start in range(0, len(paper_ids), 500):
            batch = list(paper_ids[start : start + 500])
            with self._clear_failure("ingest cannot remove vectors"):
                first = collection.get(ids=[chunking.chunk_id(pid, 0) for pid in batch], include=[])
                stored = sorted({parsed[0] for cid in first["ids"] if (parsed := chunking.parse_chunk_id(cid))})
                if stored:
                    collection.delete(where={"paper_id": {"$in": stored}})  # type: ignore[dict-item]

    def paper_ids(self) -> set[str]:
        """Ids of the papers that have at least one chunk stored."""
        found: set[str] = set()
        collection = self._usable()
        if collection is None:
            return found
        offset, page = 0, 5000
        while True:
            with self._clear_failure(None):
                got = collection.get(include=["metadatas"], limit=page, offset=offset)
            metas = got.get("metadatas") or []
            found.update(str(m["paper_id"]) for m in metas if m)
            if len(metas) < page:
                return found
            offset += page

    def all_vectors(self, page: int | None = None) -> ChunkVectors:
        """Every stored chunk vector with its chunk and paper id, read from Chroma in pages, rows ordered
        by paper id (ChunkVectors.gather). A server's pages are smaller (1,000 against 5,000): each
        reply is decoded from JSON whole, and at 10,000 papers 5,000-vector pages took a new client's
        first read to 1,094 MB against 727 MB (medians of 3 runs, docs/scale.md).

        Example: the 53 seed papers -> ChunkVectors with 208 rows of 384 floats each.
        """
        from chromadb.errors import ChromaError

        page = page or (1000 if self._url is not None else 5000)
        try:
            return self._read_all(page)
        except ChromaError as exc:
            self._raise_clear(exc, None)
            # Another process (an ingest) wrote to the local store since this one opened it, and
            # Chroma's in-process view is stale ("Error finding id"): open it afresh, once.
            log.info("the store changed under this process; opening it again")
            self._reopen()
        try:
            return self._read_all(page)
        except ChromaError as exc:
            self._raise_clear(exc, None)
            raise StoreError(
                f"cannot read the vectors in {self.location} ({exc}); if an ingest is writing to it, "
                "try again when it finishes"
            ) from exc

    def _reopen(self) -> None:
        if self._url is None:
            from chromadb.api.client import SharedSystemClient

            SharedSystemClient.clear_system_cache()  # Chroma shares one system per folder and process
        self._client = self._collection = None
        self._opened()

    def _read_all(self, page: int) -> ChunkVectors:
        collection = self._usable()
        # Every id first (one request), then the vectors a page of ids at a time: a page by offset costs
        # the server time growing with the offset (0.09 s for 1,000 vectors by id against 0.30 s at offset
        # 200,000 on a `chroma run` server; docs/scale.md), so reading by offset grew with the square of the store.
        every = collection.get(include=[])["ids"] if collection is not None else []
        if collection is None or not every:
            return ChunkVectors((), (), np.zeros((0, 0), dtype=np.float32))
        ordered = _paper_order(every)
        if ordered is None:  # ids of another shape: read, then put in paper order
            return self._gathered(collection, every, page)
        # Read in the order a corpus reads them and each page written straight into its rows, so the
        # vectors are held once: placing pages read in another order touched the whole matrix while
        # the pages were still held (twice the vectors at its peak).
        ids, owners = ordered
        at = {chunk_id: i for i, chunk_id in enumerate(ids)}
        matrix: np.ndarray | None = None
        present = np.zeros(len(ids), dtype=bool)
        for n, (found, _, block) in enumerate(_pages(collection, ids, page), start=1):
            if matrix is None:
                matrix = np.empty((len(ids), block.shape[1]), dtype=np.float32)
            places = [at[chunk_id] for chunk_id in found]
            matrix[places] = block
            present[places] = True
            if n % _TRIM_EVERY == 0:
                release_memory()  # the decoded pages' floats, freed but kept by the C allocator
        if matrix is None:
            return ChunkVectors((), (), np.zeros((0, 0), dtype=np.float32))
        if not present.all():  # chunks without their record (a write cut short): left out, as before
            kept = np.flatnonzero(present)
            return ChunkVectors(tuple(ids[i] for i in kept), tuple(owners[i] for i in kept), matrix[kept])
        return ChunkVectors(tuple(ids), tuple(owners), matrix)

    def vector_pages(self, page: int = 5000) -> tuple[list[str], list[str], Iterator[np.ndarray]] | None:
        """Every chunk id and its paper id in the order `all_vectors` gives them, and an iterator of
        their vectors a page at a time in that order, so that a caller can write them out without
        holding them all (at a million papers 3.7 GB). The iterator raises StoreError when a chunk has
        no vector or record (a write cut short). None for an empty store or ids not of ingest's shape.
        """
        collection = self._usable()
        ordered = _paper_order(collection.get(include=[])["ids"]) if collection is not None else None
        if collection is None or not ordered or not ordered[0]:
            return None
        ids, owners = ordered

        def pages() -> Iterator[np.ndarray]:
            for n, start in enumerate(range(0, len(ids), page), start=1):
                wanted = ids[start : start + page]
                got = _by_id(collection, wanted, page)
                if len(got) != len(wanted):
                    raise StoreError(f"{len(wanted) - len(got)} chunks in {self.location} have no vector or record")
                yield np.stack([got[cid] for cid in wanted])
                if n % _TRIM_EVERY == 0:
                    release_memory()

        return ids, owners, pages()

    def chunk_vectors(self, chunk_ids: Sequence[str], page: int = 1000) -> ChunkVectors | None:
        """The stored chunks among `chunk_ids` (those with a record), read by id and ordered as
        `all_vectors` orders them (by paper id, a paper's chunks by position); None when an id is not
        of ingest's shape (then only a whole read orders them).

        Example: ["pa-1", "pa-0", "pgone-0"] -> ChunkVectors of pa-0, pa-1
        """
        ordered = _paper_order(list(dict.fromkeys(chunk_ids)))
        if ordered is None:
            return None
        order, owned_by = ordered
        found: dict[str, np.ndarray] = {}
        collection = self._usable()
        if collection is not None:
            with self._clear_failure(None):
                found = _by_id(collection, order, page)
        kept = [i for i, chunk_id in enumerate(order) if chunk_id in found]
        if not kept:
            return ChunkVectors((), (), np.zeros((0, 0), dtype=np.float32))
        chunks = tuple(order[i] for i in kept)
        return ChunkVectors(chunks, tuple(owned_by[i] for i in kept), np.stack([found[c] for c in chunks]))

    def _gathered(self, collection: Any, every: list[str], page: int) -> ChunkVectors:
        """Every vector read a page of ids at a time, then put in paper order (ChunkVectors.gather)."""
        chunk_ids: list[str] = []
        paper_ids: list[str] = []
        blocks: list[np.ndarray] = []
        for found, owners, block in _pages(collection, every, page):
            chunk_ids.extend(found)
            paper_ids.extend(owners)
            blocks.append(block)
        if not blocks:
            return ChunkVectors((), (), np.zeros((0, 0), dtype=np.float32))
        return ChunkVectors.gather(chunk_ids, paper_ids, blocks)  # in paper order, as a corpus reads them

    def query(self, vectors: np.ndarray, n: int) -> list[list[ChunkMatch]]:
        """The `n` nearest chunks to each query vector, nearest first.

        Large batches are split: Chroma's SQLite fails with "too many SQL variables" when
        one call returns more than about 32k results.
        """
        total = self.count()
        if total == 0 or len(vectors) == 0:
            return [[] for _ in range(len(vectors))]
        n = min(n, total)
        step = max(1, _MAX_RESULTS_PER_CALL // n)
        return [m for start in range(0, len(vectors), step) for m in self._query(vectors[start : start + step], n)]

    def nearest_papers(self, vector: np.ndarray, n: int) -> list[tuple[str, float]]:
        """The `n` papers whose mean chunk vector (the records' vectors) is nearest `vector`, as (paper
        id, cosine), nearest first. The records' index holds one vector per paper, fewer than half the
        chunks' (at a million papers 1.7 against 4.0 GB on disk, which an embedded store loads whole).
        """
        if self._usable() is None:
            return []
        assert self._records is not None
        with self._clear_failure(None):
            # Not counted first: Chroma returns what it holds when asked for more (counting a
            # million records took 50 ms, a fifth of a search).
            got = self._records.query(
                query_embeddings=[np.asarray(vector, dtype=np.float32).tolist()], n_results=n, include=["distances"]
            )
        return [(pid, 1.0 - float(d)) for pid, d in zip(got["ids"][0], (got["distances"] or [[]])[0], strict=True)]

    def _query(self, vectors: np.ndarray, n: int) -> list[list[ChunkMatch]]:
        collection = self._usable()
        if collection is None:
            return [[] for _ in range(len(vectors))]
        with self._clear_failure(None):
            got = collection.query(
                query_embeddings=vectors.tolist(),
                n_results=n,
                include=["metadatas", "distances"],
            )
        out: list[list[ChunkMatch]] = []
        for ids, metas, dists in zip(got["ids"], got["metadatas"] or [], got["distances"] or [], strict=True):
            out.append(
                [
                    ChunkMatch(cid, str(meta["paper_id"]), 1.0 - float(dist))
                    for cid, meta, dist in zip(ids, metas, dists, strict=True)
                    if meta
                ]
            )
        return out
