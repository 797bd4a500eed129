"""The paper records in Chroma, the system of record, and the local registry that mirrors them.

Every paper's stored text, label and metadata live in Chroma beside its chunk vectors (in the
embedded store or on a server), so a second client of a server, with an empty folder, has all a
search needs. The registry in the store folder is a copy for fast reads. A write goes to Chroma
first (chunk vectors, then the record), then to the registry; each ingest that changes anything
leaves a new version token on the records when it starts changing them and when it ends. A client
whose registry was last brought in line at another token pulls the records (`pull`); a store from
before records pushes its registry into them once (`push`). It does not decide what to ingest
(ingest.plan) or talk to Chroma itself (bot.store.chroma).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator, Sequence

import numpy as np

from bot.store.chroma import VectorStore
from bot.store.registry import Registry, from_record, to_record
from bot.types import Chunk, Paper

log = logging.getLogger(__name__)

# The registry's meta key holding the records' version token it was last brought in line with.
SYNCED_KEY = "records_version"
# Papers pushed to Chroma per call when an older store is migrated.
_PUSH_BATCH = 500


def new_token() -> str:
    """A version token no other write has left. Example: new_token() -> '3f2a9c...' (32 hex digits)"""
    return uuid.uuid4().hex


def mean_vectors(paper_ids: Sequence[str], chunks: Sequence[Chunk], vectors: np.ndarray) -> np.ndarray:
    """The unit-length mean of each paper's chunk vectors, rows in `paper_ids` order (zeros for a
    paper without chunks). Example: two chunks [1, 0] and [0, 1] of one paper -> [[0.707, 0.707]]."""
    dimension = vectors.shape[1] if vectors.ndim == 2 else 0
    out = np.zeros((len(paper_ids), dimension), dtype=np.float32)
    row = {pid: i for i, pid in enumerate(paper_ids)}
    for chunk, vector in zip(chunks, vectors, strict=True):
        if chunk.paper_id in row:
            out[row[chunk.paper_id]] += vector
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.maximum(norms, 1e-12)


def put(vectors: VectorStore, papers: Sequence[Paper], chunks: Sequence[Chunk], matrix: np.ndarray) -> None:
    """Write the records of `papers`, whose chunks (with their vectors) were just stored."""
    ids = [p.paper_id for p in papers]
    vectors.put_records({p.paper_id: to_record(p) for p in papers}, mean_vectors(ids, chunks, matrix))


def update(vectors: VectorStore, papers: Sequence[Paper]) -> None:
    """Replace the records of papers whose chunks stay as they are; a paper with no record yet
    (an ingest killed between its vectors and its record) gets one from its stored chunk vectors."""
    missing = vectors.update_records({p.paper_id: to_record(p) for p in papers})
    _push(vectors, [p for p in papers if p.paper_id in missing])


def _push(vectors: VectorStore, papers: Sequence[Paper]) -> int:
    """Write records for papers whose chunk vectors are stored; returns how many (papers without
    vectors are left to the ingest, which re-embeds them)."""
    pushed = 0
    for start in range(0, len(papers), _PUSH_BATCH):
        batch = papers[start : start + _PUSH_BATCH]
        stored = vectors.paper_vectors([p.paper_id for p in batch])
        have = [p for p in batch if p.paper_id in stored]
        if not have:
            continue
        means = np.stack([stored[p.paper_id].mean(axis=0) for p in have])
        means /= np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-12)
        vectors.put_records({p.paper_id: to_record(p) for p in have}, means)
        pushed += len(have)
    return pushed


def push(vectors: VectorStore, registry: Registry) -> int:
    """Give a store from before paper records (or a server wiped since) the records of the registry's
    papers; returns how many were written. The caller leaves a version token afterwards."""
    pushed = _push(vectors, sorted(registry.papers().values(), key=lambda p: p.paper_id))
    if pushed:
        log.info("copied %d papers from the registry into the store's paper records", pushed)
    return pushed


def pull(vectors: VectorStore, registry: Registry, token: str) -> int:
    """Bring the registry in line with the records, in one transaction, reading them a page at a time
    (a new client of a server of 100,000 papers holds one page, not every record); returns how many
    papers changed. Records that cannot be read back (written by something else) are skipped with a
    warning."""
    unreadable = 0

    def readable() -> Iterator[Paper]:
        nonlocal unreadable
        for paper_id, record in vectors.records():
            try:
                yield from_record(paper_id, record)
            except (KeyError, ValueError, TypeError):
                unreadable += 1

    changed, gone = registry.mirror(readable(), {SYNCED_KEY: token})
    if unreadable:
        log.warning("skipped %d paper records in %s that are not paperbot's", unreadable, vectors.location)
    if changed or gone:
        log.info(
            "brought the local registry in line with %s: %d papers new or changed, %d gone",
            vectors.location,
            changed,
            gone,
        )
    return changed + gone
