"""The root of the settings tree (Settings, read from PAPERBOT_* variables), the UI's section, and
`load_settings`, which turns a bad variable into a SettingsError naming it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from pydantic_settings import SettingsError as SourceError

from bot import bundled
from bot.errors import SettingsError
from bot.settings.answer import AnswerSettings, CheckSettings, GeneratorSettings
from bot.settings.library import TriageSettings
from bot.settings.search import RetrievalSettings
from bot.settings.stored import ChunkSettings, EmbedSettings, LexicalSettings, StoreSettings


class UISettings(BaseModel):
    """The Gradio chat server."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    host: str = Field("127.0.0.1", description="Interface to bind; loopback unless told otherwise.")
    port: int = Field(7860, ge=1, le=65535, description="Port of the chat UI.")
    answer_slots: int = Field(
        1,
        ge=1,
        le=16,
        description="Questions (chat and /ask together) answered at once. 1 here: on 2 cores a second slot "
        "gave no more answers per second under 20 users (benchmarks/load.py), only more CPU contention.",
    )
    task_slots: int = Field(
        1,
        ge=1,
        le=16,
        description="Other requests of one kind (triage, a reading-list change, an export) run at once; "
        "each kind has its own slots (Gradio's default_concurrency_limit).",
    )
    queue_size: int = Field(
        64,
        ge=1,
        description="Requests that may wait for a slot, all kinds together; one more is refused at once, the "
        "page saying the application is busy and to try again (HTTP 503). 64 waiting questions clear in "
        "about 13 s at 0.2 s each, the slowest answers of a server just started (benchmarks/load.py).",
    )
    auth: SecretStr | None = Field(
        None,
        description="Logins the chat asks for, as user:password pairs separated by commas "
        "('ana:s3cret,ben:pa55'); unset (and no users_file): no login, as suits a server on loopback.",
    )
    users_file: Path | None = Field(
        None,
        description="A file of user:password lines (blank lines and # comments ignored) the chat asks for, "
        "added to `auth`; read when the server starts.",
    )


class Settings(BaseSettings):
    """Everything paperbot can be told, with its defaults."""

    model_config = SettingsConfigDict(
        env_prefix="PAPERBOT_", env_nested_delimiter="__", extra="ignore", allow_inf_nan=False
    )

    store: Path = Field(Path(".paperbot"), description="Folder of the local store.")

    @field_validator("store", mode="before")
    @classmethod
    def _names_a_folder(cls, value: Any) -> Any:
        """An empty value (an unset shell variable in a script) would mean the working folder, and a store's
        files would land wherever the command ran."""
        if isinstance(value, str | Path) and not str(value).strip():
            raise ValueError("names no folder; give the store's folder, or unset it for the default .paperbot/")
        return value

    chroma_url: str | None = Field(
        None, description="http://host:port of a Chroma server to use instead of the local one."
    )
    seeds: Path = Field(
        default_factory=lambda: bundled.folder("seeds"),
        description="Corpus ingested when no path is given (default: the bundled NeurIPS 2026 seed abstracts).",
    )
    embed: EmbedSettings = Field(
        default_factory=EmbedSettings,  # type: ignore[arg-type]
        description="How text becomes vectors (part of the index fingerprint).",
    )
    chunk: ChunkSettings = Field(
        default_factory=ChunkSettings,  # type: ignore[arg-type]
        description="How abstracts are cut into embeddable pieces (part of the index fingerprint).",
    )
    lexical: LexicalSettings = Field(
        default_factory=LexicalSettings,  # type: ignore[arg-type]
        description="How the BM25 index scores (recorded in the saved index).",
    )
    storage: StoreSettings = Field(
        default_factory=StoreSettings,  # type: ignore[arg-type]
        description="The Chroma collection, and how ingest embeds and writes papers.",
    )
    retrieval: RetrievalSettings = Field(
        default_factory=RetrievalSettings,  # type: ignore[arg-type]
        description="Hybrid search and abstention.",
    )
    answer: AnswerSettings = Field(
        default_factory=AnswerSettings,  # type: ignore[arg-type]
        description="The extractive composer.",
    )
    triage: TriageSettings = Field(
        default_factory=TriageSettings,  # type: ignore[arg-type]
        description="Triage over the whole corpus, its themes, and more like this.",
    )
    check: CheckSettings = Field(
        default_factory=CheckSettings,  # type: ignore[arg-type]
        description="Citation checking of answer sentences.",
    )
    ui: UISettings = Field(
        default_factory=UISettings,  # type: ignore[arg-type]
        description="The chat server.",
    )
    generator: GeneratorSettings = Field(
        default_factory=GeneratorSettings,  # type: ignore[arg-type]
        description="The language-model answer path.",
    )


def _names(model: type[BaseModel], prefix: str = "") -> set[str]:
    """Every variable name (after PAPERBOT_) a settings model reads: its fields, its sections whole, and
    their fields. Example: _names(Settings) -> {'STORE', 'RETRIEVAL', 'RETRIEVAL__K', ...}"""
    out = set()
    for name, field in model.model_fields.items():
        out.add(prefix + name.upper())
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            out |= _names(kind, f"{prefix}{name.upper()}__")
    return out


def unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """What to say of each PAPERBOT_* variable in `environ` that names no setting (a misspelt one looks as
    if it worked), with the nearest setting. Example: {"PAPERBOT_RETREIVAL__K": "1"} ->
    ["PAPERBOT_RETREIVAL__K names no setting and is ignored; did you mean PAPERBOT_RETRIEVAL__K?"]"""
    known = _names(Settings)
    out = []
    for key in sorted(environ):
        name = key.upper().removeprefix("PAPERBOT_")
        if not key.upper().startswith("PAPERBOT_") or name in known or name.startswith(_NOT_SETTINGS):
            continue
        near = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean PAPERBOT_{near[0]}?" if near else " (the modules of bot/settings/ list the settings)"
        out.append(f"{key} names no setting and is ignored{hint}")
    return out


# Variables of paperbot's own test tools, not settings (tests/fuzz.py).
_NOT_SETTINGS = ("FUZZ_",)


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
            "; ".join(problems) + "; fix or unset the variable (the modules of bot/settings/ describe each setting)"
        ) from exc
