"""Vector cache files written a block of rows at a time: a store version's made from the version
before and the papers one ingest changed, or from Chroma's pages as they are read.

Reading every chunk vector from Chroma again after a small ingest costs a million-paper store's next
reader 149-164 s and 10 GB (docs/scale.md). The cache of the version before holds every vector the
ingest did not touch, in paper order, so the new one is that file with the changed papers' rows
taken out and the new rows put in their places: copied a block of rows at a time, never all in
memory. It knows nothing of Chroma (the caller hands it the new rows) or of the registry.
"""

from __future__ import annotations

import logging
import os
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np

from bot.store.vectors import ChunkVectors, VectorCache, member

log = logging.getLogger(__name__)

_BLOCK = 65_536  # rows copied at a time: 96 MB of 384-float vectors
_SPAN = 4 * _BLOCK  # at most this many rows read at once to pick a block's kept ones from


def update(base: VectorCache, target: VectorCache, dropped: set[str], added: ChunkVectors, expected: int) -> bool:
    """Write `target` as `base` without the rows of the `dropped` papers, with `added`'s rows put in
    paper order (their papers must be among `dropped` or new). `added` is in paper order, each paper's
    chunks by position, as Chroma's whole read orders them, so the file is the one that read would
    write. Returns False, writing nothing, when `base` is unusable or the result would not hold
    `expected` rows (the next reader then reads every vector from Chroma, as without a base).

    Example: base of papers a, b, c; dropped {"b"}; added b's 3 new rows -> a, b (3 rows), c
    """
    if not dropped and not added.chunk_ids and _link(base, target, expected):
        return True  # only metadata changed: the same rows under the new key
    try:
        with open(base.path, "rb") as file, zipfile.ZipFile(file) as archive:
            rows = member(file, archive, "matrix")
            with archive.open("paper_ids.npy") as part:
                paper_ids = np.lib.format.read_array(part, allow_pickle=False)
            with archive.open("chunk_ids.npy") as part:
                chunk_ids = np.lib.format.read_array(part, allow_pickle=False)
            usable = len(rows.shape) == 2 and rows.dtype == np.dtype("<f4") and rows.shape[0] == len(paper_ids)
            # Rows not in paper order were written before they were kept so: not a base to insert into.
            if not usable or len(chunk_ids) != len(paper_ids) or np.any(paper_ids[:-1] > paper_ids[1:]):
                return False
            if added.matrix.size and added.matrix.shape[1] != rows.shape[1]:
                return False
            keep = np.flatnonzero(~np.isin(paper_ids, np.array(sorted(dropped), dtype=str)))
            if len(keep) + len(added.paper_ids) != expected:
                log.info("the vector cache of the version before does not add up; the next reader reads every vector")
                return False
            new_papers, new_chunks = (np.array(ids, dtype=str) for ids in (added.paper_ids, added.chunk_ids))
            # Ids as wide as the widest of either (np.insert would cut a longer new id to the old width).
            kept_papers = paper_ids[keep].astype(np.promote_types(paper_ids.dtype, new_papers.dtype))
            kept_chunks = chunk_ids[keep].astype(np.promote_types(chunk_ids.dtype, new_chunks.dtype))
            places = np.searchsorted(kept_papers, new_papers, side="left")
            merged_papers = np.insert(kept_papers, places, new_papers)
            merged_chunks = np.insert(kept_chunks, places, new_chunks)
            del paper_ids, chunk_ids, kept_papers, kept_chunks  # 0.8 GB of ids at a million papers
            blocks = _merged_rows(file, rows.offset, rows.shape[1], keep, places, added.matrix)
            write_rows(target, merged_chunks, merged_papers, rows.shape[1], blocks)
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        log.warning(
            "could not update the vector cache from %s (%s); the next reader reads every vector", base.path, exc
        )
        return False
    return True


def _link(base: VectorCache, target: VectorCache, expected: int) -> bool:
    """`base`'s file named as `target` too (its rows unchanged), when it holds `expected` rows in paper
    order; False when it cannot be (then it is copied)."""
    if base.rows(expected) is None:
        return False
    try:
        os.link(base.path, target.path)
        target.drop_others()
    except OSError as exc:  # a file system without hard links
        log.info("could not name the vector cache %s anew (%s); copying it", base.path, exc)
        return False
    return True


def _merged_rows(
    file: BinaryIO, offset: int, width: int, keep: np.ndarray, places: np.ndarray, added: np.ndarray
) -> Iterator[np.ndarray]:
    """The merged matrix a block at a time: kept rows `keep` of the base file (float32 rows of `width`
    from `offset`), with added row i put before kept row places[i] (after the last when it is len(keep))."""
    size = width * 4
    start = 0
    while True:
        # At most _BLOCK kept rows, spread over at most _SPAN rows of the file (a prune leaves gaps).
        stop = min(start + _BLOCK, len(keep))
        if stop > start:
            stop = min(stop, int(np.searchsorted(keep, keep[start] + _SPAN)))
        kept = keep[start:stop]
        block = np.zeros((0, width), dtype=np.float32)
        if len(kept):
            first, last = int(kept[0]), int(kept[-1]) + 1
            data = os.pread(file.fileno(), (last - first) * size, offset + first * size)
            if len(data) != (last - first) * size:
                raise ValueError(f"the cache file ended before row {last}")
            block = np.frombuffer(data, dtype=np.float32).reshape(last - first, width)[kept - first]
        final = stop >= len(keep)
        mine = (places >= start) & ((places < stop) | final)
        if mine.any():
            block = np.insert(block, places[mine] - start, added[mine], axis=0)
        yield block
        if final:
            return
        start = stop


def write_rows(
    target: VectorCache, chunk_ids: np.ndarray, paper_ids: np.ndarray, width: int, blocks: Iterator[np.ndarray]
) -> None:
    """Write the cache file of `target` as np.savez would (uncompressed members, read a range at a
    time by CachedRows), the matrix taken from `blocks` of rows as they come, never held whole; to a
    temporary file renamed into place, older caches then removed (VectorCache.save). Whatever
    `blocks` raises is raised, the temporary file removed."""
    folder = target.folder
    handle, name = tempfile.mkstemp(dir=folder, prefix=".tmp-vectors-", suffix=".npz")
    tmp = Path(name)
    try:
        with os.fdopen(handle, "wb") as f, zipfile.ZipFile(f, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
            for key, array in (("chunk_ids", chunk_ids), ("paper_ids", paper_ids)):
                with archive.open(f"{key}.npy", "w", force_zip64=True) as out:
                    np.lib.format.write_array(out, array, allow_pickle=False)
            header = {
                "descr": np.lib.format.dtype_to_descr(np.dtype("<f4")),
                "fortran_order": False,
                "shape": (len(paper_ids), width),
            }
            with archive.open("matrix.npy", "w", force_zip64=True) as out:
                np.lib.format.write_array_header_2_0(out, header)
                written = 0
                for block in blocks:
                    if block.ndim != 2 or block.shape[1] != width:
                        raise ValueError(f"a block of rows {block.shape} where rows of {width} were written")
                    out.write(np.ascontiguousarray(block, dtype="<f4").tobytes())
                    written += len(block)
            if written != len(paper_ids):
                raise ValueError(f"wrote {written} rows of {len(paper_ids)}")
        os.chmod(tmp, 0o644)
        os.replace(tmp, target.path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    target.drop_others()
