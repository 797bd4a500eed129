"""Every chunk vector of a store in one array, and its copy in an .npz file beside the store.

Reading ~35k vectors from Chroma takes seconds, so a reader keeps them in a file named by the
store version it was read at, and the next process loads that instead. It does not talk to
Chroma (bot.store.chroma) or score anything (bot.store.corpus).
"""

from __future__ import annotations

import ctypes
import logging
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.store.paths import VECTORS_PREFIX, VECTORS_SUFFIX, StorePaths

log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class ChunkVectors:
    """Every stored chunk vector: row i of `matrix` is chunk `chunk_ids[i]` of paper `paper_ids[i]`."""

    chunk_ids: tuple[str, ...]
    paper_ids: tuple[str, ...]
    matrix: np.ndarray  # float32, (chunks, dimension), unit length rows

    @classmethod
    def gather(cls, chunk_ids: Sequence[str], paper_ids: Sequence[str], pages: list[np.ndarray]) -> ChunkVectors:
        """ChunkVectors with rows ordered by paper id (a paper's chunks keep their order), the order a
        corpus reads them in, so that a reader scores the matrix as loaded, with no copy (PaperVectors).

        Row i of the pages' concatenation is chunk `chunk_ids[i]`. Each page is placed and let go in
        turn, so no more than one extra copy of the vectors is held; `pages` is emptied.
        Example: paper ids ("b", "a", "b") in pages [[r0, r1], [r2]] -> rows r1, r0, r2
        """
        order = np.argsort(np.array(paper_ids, dtype=str), kind="stable")
        if len(pages) == 1 and np.array_equal(order, np.arange(len(order))):
            return cls(tuple(chunk_ids), tuple(paper_ids), pages.pop())
        dimension = pages[0].shape[1] if pages else 0
        matrix = np.empty((len(order), dimension), dtype=np.float32)
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        start = 0
        while pages:
            page = pages.pop(0)
            matrix[rank[start : start + len(page)]] = page
            start += len(page)
        return cls(tuple(chunk_ids[i] for i in order), tuple(paper_ids[i] for i in order), matrix)


class VectorCache:
    """All chunk vectors of one store version in one .npz file beside the store, read instead of Chroma.

    The file name carries the key (registry version, vector count, index fingerprint), so an
    ingest, a prune or a rebuild with other settings makes it stale: it is then ignored, and
    replaced (older files removed) by the next `save`. Written to a temporary file and renamed,
    so a reader never sees half a file. Example: VectorCache(store, "12-35231-ab12cd").load() -> None
    the first time, the vectors once saved.
    """

    def __init__(self, folder: Path, key: str) -> None:
        self.folder = Path(folder)
        self._paths = StorePaths(self.folder)
        self.path = self._paths.vector_cache(key)

    def load(self, expected_rows: int) -> ChunkVectors | None:
        """The cached vectors, or None when there are none for this key or the file is unreadable."""
        try:
            with np.load(self.path, allow_pickle=False) as data:
                chunks = ChunkVectors(
                    tuple(data["chunk_ids"].tolist()), tuple(data["paper_ids"].tolist()), data["matrix"]
                )
        except (OSError, KeyError, ValueError) as exc:
            if self.path.exists():
                log.warning("ignoring the unreadable vector cache %s: %s", self.path, exc)
            return None
        rows = len(chunks.chunk_ids)
        if rows != expected_rows or len(chunks.paper_ids) != rows or chunks.matrix.shape[0] != rows:
            return None
        return chunks

    @staticmethod
    def key(version: int, count: int, fingerprint: str) -> str:
        """The key a cache is saved under. Example: key(12, 35231, "ab12cd34ef56aa00") -> '12-35231-ab12cd34ef56'"""
        return f"{version}-{count}-{fingerprint[:12]}"

    @staticmethod
    def find(folder: Path, version: int, fingerprint: str) -> int | None:
        """The vector count in the name of the cache kept in `folder` for registry `version` and this
        fingerprint, or None when there is none: a reader that finds one needs no Chroma at all.

        Example: find(Path("s"), 12, "ab12cd34ef56aa00") -> 35231 for s/corpus-vectors-12-35231-ab12cd34ef56.npz
        """
        for path in StorePaths(folder).vector_caches():
            key = path.name[len(VECTORS_PREFIX) : -len(VECTORS_SUFFIX)]
            count = key.split("-")[1] if key.count("-") == 2 else ""
            if count.isdigit() and key == VectorCache.key(version, int(count), fingerprint):
                return int(count)
        return None

    def save(self, chunks: ChunkVectors) -> None:
        """Keep `chunks` for the next process; a store that cannot be written to is only logged."""
        tmp: Path | None = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)  # a read-only store's cache folder may be new
            handle, name = tempfile.mkstemp(dir=self.folder, prefix=".tmp-vectors-", suffix=".npz")
            tmp = Path(name)
            with os.fdopen(handle, "wb") as f:
                np.savez(
                    f,
                    chunk_ids=np.array(chunks.chunk_ids, dtype=str),
                    paper_ids=np.array(chunks.paper_ids, dtype=str),
                    matrix=np.asarray(chunks.matrix, dtype=np.float32),
                )
            os.chmod(tmp, 0o644)  # mkstemp makes it private; the store's other files are readable
            os.replace(tmp, self.path)
            for old in self._paths.vector_caches():
                if old != self.path:
                    old.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("could not cache the corpus vectors in %s: %s", self.folder, exc)
            if tmp is not None:
                tmp.unlink(missing_ok=True)


def release_memory() -> None:
    """Hand memory the C allocator keeps after frees back to the system (glibc's malloc_trim; nothing
    elsewhere). Reading 238,635 vectors as JSON from a server frees about a GB of decoded floats and
    pages that glibc would keep for reuse (a new client's first read at 100,000 papers, docs/scale.md)."""
    try:
        libc = ctypes.CDLL(None)
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)
