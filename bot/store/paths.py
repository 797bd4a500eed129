"""Every file of a store folder, named in one place.

A store folder holds the Chroma files, the paper registry (which also keeps the reading lists),
the BM25 index, the vector cache and the write lock. Nothing else builds these paths; this module
only names them (and lists the vector caches present); it never creates, reads or writes a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# The prefix and suffix of the vector cache files (bot.store.vectors); the part between is its key.
VECTORS_PREFIX = "corpus-vectors-"
VECTORS_SUFFIX = ".npz"


@dataclass(frozen=True)
class StorePaths:
    """The files of the store in `folder`.

    Example: StorePaths(Path(".paperbot")).registry -> Path('.paperbot/papers.sqlite')
    """

    folder: Path

    @property
    def chroma(self) -> Path:
        """Chroma's own folder (the local store; a Chroma server keeps its vectors elsewhere)."""
        return self.folder / "chroma"

    @property
    def registry(self) -> Path:
        """The SQLite file of papers, registry metadata and reading lists."""
        return self.folder / "papers.sqlite"

    @property
    def lexical(self) -> Path:
        """The folder of the saved BM25 index."""
        return self.folder / "lexical"

    @property
    def sentences(self) -> Path:
        """The SQLite file of abstract sentences' vectors (bot.store.sentences), a cache for answers."""
        return self.folder / "sentence-vectors.sqlite"

    @property
    def lock(self) -> Path:
        """The write lock an ingest holds."""
        return self.folder / "write.lock"

    @property
    def holder(self) -> Path:
        """Who holds the write lock ('pid host'), for messages; the lock file itself is truncated by contenders."""
        return self.folder / "write.pid"

    def vector_cache(self, key: str) -> Path:
        """The .npz copy of every chunk vector for one key (registry version, vector count, fingerprint).

        Example: StorePaths(Path("s")).vector_cache("12-208-ab12") -> Path('s/corpus-vectors-12-208-ab12.npz')
        """
        return self.folder / f"{VECTORS_PREFIX}{key}{VECTORS_SUFFIX}"

    def vector_caches(self) -> list[Path]:
        """Every vector cache file in the folder, whatever its key."""
        return sorted(self.folder.glob(f"{VECTORS_PREFIX}*{VECTORS_SUFFIX}"))
