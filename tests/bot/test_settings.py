"""The settings tree: every name importable from bot.settings, PAPERBOT_* variables reach every
section, every field says what it does, and no tuning number hides in a module outside it."""

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

import bot.settings
from bot.errors import SettingsError
from bot.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parent.parent.parent


def fields(model: type[BaseModel], env: str = "PAPERBOT") -> Iterator[tuple[str, str | None, object]]:
    """(environment variable, description, default) of every field of `model`, sections walked
    into. Example: fields(Settings) -> ('PAPERBOT_RETRIEVAL__K', 'Papers returned by search.', 10), ..."""
    for name, info in model.model_fields.items():
        variable = f"{env}{'_' if env == 'PAPERBOT' else '__'}{name.upper()}"
        yield variable, info.description, info.default
        if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
            yield from fields(info.annotation, variable)


def test_every_section_is_importable_from_the_package() -> None:
    names = {"Settings", "load_settings", "UISettings"} | {
        type(getattr(Settings(), name)).__name__
        for name, info in Settings.model_fields.items()
        if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel)
    }
    assert names <= set(bot.settings.__all__)
    assert all(getattr(bot.settings, name) is not None for name in bot.settings.__all__)


def test_every_field_has_a_description() -> None:
    missing = [variable for variable, description, _ in fields(Settings) if not (description or "").strip()]
    assert missing == []


def test_variable_names_keep_the_prefix_and_double_underscore_scheme() -> None:
    variables = {variable for variable, _, _ in fields(Settings)}
    assert {"PAPERBOT_STORE", "PAPERBOT_RETRIEVAL__K", "PAPERBOT_STORAGE__WRITE_BATCH"} <= variables
    assert all(re.fullmatch(r"PAPERBOT_[A-Z_]+(__[A-Z0-9_]+)*", v) for v in variables)


def test_every_section_reads_its_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """One number of each section, set through its variable, reaches the section."""
    for name, info in Settings.model_fields.items():
        if not (isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel)):
            continue
        field, spec = next((f, s) for f, s in info.annotation.model_fields.items() if s.annotation in (int, float))
        value = spec.default + 1 if spec.annotation is int else spec.default / 2  # within every field's bounds
        monkeypatch.setenv(f"PAPERBOT_{name.upper()}__{field.upper()}", str(value))
        assert getattr(getattr(load_settings(), name), field) == value, name


def test_a_bad_variable_names_itself_and_says_where_settings_are_described(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERBOT_TRIAGE__MIN_SCORE", "high")
    with pytest.raises(SettingsError, match=r"PAPERBOT_TRIAGE__MIN_SCORE='high': .*bot/settings/") as error:
        load_settings()
    assert (ROOT / "bot" / "settings").is_dir(), str(error.value)
