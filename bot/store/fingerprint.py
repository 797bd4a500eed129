"""The index fingerprint: a hash of every setting that decides what is stored, and the one check of it.

A store remembers the fingerprint it was built with, twice: in the Chroma collection's metadata
and in the registry. Opening it with other embedding or chunk settings would mix vectors that
cannot be compared, so `mismatch` says so, in one message that names the command that rebuilds
it. This module hashes and compares; it does not open a store (bot.store.store does).
"""

from __future__ import annotations

import hashlib
import json

from bot.errors import FingerprintError
from bot.settings import ChunkSettings, EmbedSettings

# Bump when normalisation or chunking code changes what is stored for the same settings.
INDEX_FORMAT = 2

# The registry's meta key and the Chroma collection's metadata key holding the fingerprint.
REGISTRY_KEY = "fingerprint"
COLLECTION_KEY = "paperbot_fingerprint"


def index_fingerprint(embed: EmbedSettings, chunk: ChunkSettings) -> str:
    """Hash of every setting that decides what is stored; saved beside the index.

    Example: index_fingerprint(EmbedSettings(), ChunkSettings()) -> '3f9a...' (16 hex digits)
    """
    decisive: dict[str, object] = {
        "format": INDEX_FORMAT,
        "model": embed.model,
        "max_word_pieces": embed.max_word_pieces,
        "chunk": chunk.model_dump(),
    }
    if embed.resolved_precision() != "float32":  # float32 stores keep the fingerprint they had before precisions
        decisive["precision"] = embed.resolved_precision()
    blob = json.dumps(decisive, sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def adopted(embed: EmbedSettings, chunk: ChunkSettings, built: str | None) -> EmbedSettings:
    """The embedding settings a store built with fingerprint `built` is read and extended with: with
    precision 'auto', the precision it was built with (float32 and bfloat16 vectors agree to cosine
    0.9999, but a store is never mixed); otherwise, or for a new store, `embed` as it is.

    Example: adopted(EmbedSettings(), ChunkSettings(), "9423db658b1181dd").precision -> 'float32'
    """
    if embed.precision != "auto" or built is None:
        return embed
    for precision in ("float32", "bfloat16"):
        pinned = embed.model_copy(update={"precision": precision})
        if index_fingerprint(pinned, chunk) == built:
            return pinned
    return embed


def describe_fingerprint(embed: EmbedSettings, chunk: ChunkSettings) -> str:
    """Human description of what the fingerprint covers, for error messages."""
    return (
        f"model={embed.model}, precision={embed.resolved_precision()}, chunk max_tokens={chunk.max_tokens}, "
        f"overlap={chunk.overlap_sentences}, encoding={chunk.encoding}, format={INDEX_FORMAT}"
    )


def mismatch(
    wanted: str,
    described: str,
    location: str,
    collection: str,
    vectors: tuple[int, str | None],
    registry: tuple[int, str | None],
) -> FingerprintError | None:
    """The error for a store built with other settings, or None when it matches or holds nothing.

    `vectors` is (vectors stored, the collection's fingerprint) and `registry` (papers registered,
    the registry's fingerprint). Vectors without a fingerprint are refused (they were stored by
    something else); papers without one are not (the registry has not always kept it).
    Example: mismatch("ab", "model=m, ...", "s/chroma", "paperbot", (208, "cd"), (53, "cd")) -> FingerprintError
    """
    (vector_count, in_vectors), (paper_count, in_registry) = vectors, registry
    if vector_count and in_vectors != wanted:
        built = in_vectors
    elif paper_count and in_registry not in (None, wanted):
        built = in_registry
    else:
        return None
    return FingerprintError(
        f"the index in {location} (collection {collection!r}) was built with other settings "
        f"(fingerprint {built}, now {wanted}: {described}); rebuild it with `paperbot ingest --rebuild`, "
        "or restore the settings it was built with"
    )
