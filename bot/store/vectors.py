"""Every chunk vector of a store in one array, and its copy in an .npz file beside the store.

Reading ~35k vectors from Chroma takes seconds, so a reader keeps them in a file named by the
store version it was read at, and the next process loads that instead. It does not talk to
Chroma (bot.store.chroma) or score anything (bot.store.corpus).
"""

from __future__ import annotations

import ctypes
import logging
import os
import struct
import tempfile
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

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


_WINDOW = 16  # rows looked at after a paper's first (CachedRows.paper_chunks)


@dataclass(frozen=True)
class _Member:
    """Where one array of an uncompressed .npz starts in the file, and its type and shape."""

    offset: int
    dtype: np.dtype
    shape: tuple[int, ...]

    def rows(self, file: BinaryIO, start: int, stop: int) -> np.ndarray:
        """Rows start..stop read from the file (a copy: nothing stays mapped or in memory)."""
        width = self.dtype.itemsize * int(np.prod(self.shape[1:], dtype=np.int64))
        data = os.pread(file.fileno(), (stop - start) * width, self.offset + start * width)
        return np.frombuffer(data, dtype=self.dtype).reshape((stop - start, *self.shape[1:]))


def member(file: BinaryIO, archive: zipfile.ZipFile, name: str) -> _Member:
    """Where the array `name` of an uncompressed .npz (np.savez writes them so) starts in `file`.

    numpy reads an .npz member only whole; this finds where its data starts (past the zip entry's
    local header and the .npy header), so that rows can be read one range at a time."""
    info = archive.getinfo(f"{name}.npy")
    if info.compress_type != zipfile.ZIP_STORED:
        raise ValueError(f"{name} is compressed")
    file.seek(info.header_offset)
    local = file.read(30)
    if len(local) < 30 or local[:4] != b"PK\x03\x04":
        raise ValueError(f"no zip entry for {name}")
    name_length, extra_length = struct.unpack("<HH", local[26:30])
    file.seek(info.header_offset + 30 + name_length + extra_length)
    version = np.lib.format.read_magic(file)
    read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    shape, fortran, dtype = read_header(file)
    if dtype.hasobject or (fortran and len(shape) > 1):
        raise ValueError(f"{name} is not a plain array")
    return _Member(file.tell(), dtype, tuple(shape))


class CachedRows:
    """The chunk vectors of the cache file read a paper at a time, when asked for: a reader holds
    the papers' ids only (124 MB at a million papers), not the vectors (3.7 GB).

    Rows are in paper-id order (ChunkVectors.gather), so a paper's chunks are found by binary search
    and read with one `pread` each. Not mapped: the kernel counts every page of a large cached
    folio that a mapping touches in the reader's memory (0.9 GB after 2,000 papers, measured).
    Example: CachedRows(...).paper_chunks(["p1"]) -> {"p1": (["p1-0", "p1-1"], 2 x 384 array)}
    """

    def __init__(self, file: BinaryIO, paper_ids: np.ndarray, chunk_ids: _Member, matrix: _Member) -> None:
        self._file = file  # kept open: a newer cache may replace the file's name, not its contents
        self.paper_ids = paper_ids  # fixed-width unicode, sorted
        self._chunk_ids, self._matrix = chunk_ids, matrix

    def __del__(self) -> None:
        self._file.close()

    def paper_chunks(self, paper_ids: Sequence[str]) -> dict[str, tuple[list[str], np.ndarray]]:
        """The chunk ids and vectors of each of these papers (papers without any are left out), as
        VectorStore.paper_chunks returns them from Chroma."""
        if not len(self.paper_ids):
            return {}
        width = self.paper_ids.dtype.itemsize // 4  # an id longer than the stored ones is not there
        ids = sorted({pid for pid in paper_ids if len(pid) <= width})
        wanted = np.array(ids, dtype=self.paper_ids.dtype)
        starts = np.searchsorted(self.paper_ids, wanted, side="left")
        # A paper's rows follow its first: count them in a window after it (a second binary search
        # costs as much as the first), searching only for a paper with more rows than the window.
        window = np.minimum(starts[:, None] + np.arange(_WINDOW), len(self.paper_ids) - 1)
        counts = (self.paper_ids[window] == wanted[:, None]).sum(axis=1)
        ends = starts + counts
        full = np.flatnonzero(counts == _WINDOW)
        ends[full] = np.searchsorted(self.paper_ids, wanted[full], side="right")
        return {
            pid: (
                [str(c) for c in self._chunk_ids.rows(self._file, a, b)],
                self._matrix.rows(self._file, a, b).astype(np.float32),
            )
            for pid, a, b in zip(ids, starts.tolist(), ends.tolist(), strict=True)
            if b > a
        }


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

    def rows(self, expected_rows: int) -> CachedRows | None:
        """The cached vectors to be read a paper at a time (the approximate path reads only its
        candidates'), or None when there are none for this key or the file is unusable."""
        file: BinaryIO | None = None
        try:
            file = open(self.path, "rb")  # noqa: SIM115 (held open by the CachedRows returned)
            with zipfile.ZipFile(file) as archive:  # a file handed to ZipFile stays open
                chunk_ids, matrix = (member(file, archive, name) for name in ("chunk_ids", "matrix"))
                with archive.open("paper_ids.npy") as part:
                    paper_ids = np.lib.format.read_array(part, allow_pickle=False)  # this member only
        except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
            if file is not None:
                file.close()
            if self.path.exists():
                log.warning("ignoring the unreadable vector cache %s: %s", self.path, exc)
            return None
        count = len(paper_ids)
        usable = count == expected_rows and chunk_ids.shape[:1] == (count,) and matrix.shape[:1] == (count,)
        # Rows not in paper order were written before they were kept so (the next save sorts them).
        if usable and count and (len(matrix.shape) != 2 or not np.all(paper_ids[:-1] <= paper_ids[1:])):
            usable = False
        if not usable:
            file.close()
            return None
        return CachedRows(file, paper_ids, chunk_ids, matrix)

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
            self.drop_others()
        except OSError as exc:
            log.warning("could not cache the corpus vectors in %s: %s", self.folder, exc)
            if tmp is not None:
                tmp.unlink(missing_ok=True)

    def drop_others(self) -> None:
        """Remove the caches of other versions kept beside this one (a reader still reading one keeps
        it open, so it reads on), and temporary files a killed writer left an hour ago or more (one
        being written is touched every few seconds)."""
        for old in self._paths.vector_caches():
            if old != self.path:
                old.unlink(missing_ok=True)
        for left in self.folder.glob(".tmp-vectors-*.npz"):
            try:
                if time.time() - left.stat().st_mtime > 3600:
                    left.unlink(missing_ok=True)
            except OSError:
                pass


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
