"""The settings tree: every name importable from bot.settings, PAPERBOT_* variables reach every
section, every field says what it does, and no tuning number hides in a module outside it."""

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

import bot.settings
from bot.errors import SettingsError
from bot.settings import Settings, load_settings, unknown_variables

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


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_a_float_that_is_not_a_finite_number_is_refused(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """`nan` turned abstention off without a word; `inf` made scores nan (a fuzzing helper's finds)."""
    monkeypatch.setenv("PAPERBOT_RETRIEVAL__ABSTAIN_BELOW", value)
    with pytest.raises(SettingsError, match=r"PAPERBOT_RETRIEVAL__ABSTAIN_BELOW=.*finite number"):
        load_settings()


# Module-level float constants that are not tuning, each with the reason it stays in its module.
NOT_TUNING = {
    ("bot/store/database.py", "_BUSY_TIMEOUT"): "how long SQLite waits for another process's write: not a quality knob",
    ("bot/store/lexical.py", "_UNRECORDED_BM25"): "the k1 and b that indexes saved before they were recorded carry",
    ("bot/embedder.py", "_BFLOAT16_GAIN"): "how much faster a precision must time to be chosen over float32: a "
    "margin for timing noise, not a quality knob (both give the same vectors to cosine 0.9999)",
    ("bot/encoder.py", "_ERF_P"): "coefficients of the error function's approximation: mathematics, not a knob",
    ("bot/encoder.py", "_ERF_Q"): "coefficients of the error function's approximation: mathematics, not a knob",
    ("ingest/identity.py", "_SHARED_WORDS"): "a cheap filter before storage.same_paper_similarity decides: "
    "versions of a paper share about 0.8 of their distinct words, so 0.5 turns none away",
    ("ingest/structured.py", "PROGRESS_EVERY"): "how often a long read says how far it got: not a quality knob",
    ("bot/ui/events.py", "STREAM_EVERY"): "how often a reply being written is sent to the browser: not a quality knob",
}


def float_constants(path: Path) -> list[str]:
    """Names of the module-level constants (upper-case names) of `path` whose value holds a float literal.

    Example: a module with `_PENALTY = 0.85` and `LIMITS = {"b": 0.75}` -> ['_PENALTY', 'LIMITS']
    """
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        names = [t.id for t in targets if isinstance(t, ast.Name) and t.id.lstrip("_").isupper()]
        if names and any(isinstance(c, ast.Constant) and type(c.value) is float for c in ast.walk(value)):
            found += names
    return found


def test_the_constant_finder_finds_floats_in_any_shape(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('_PENALTY = 0.85\nLIMITS = {"b": 0.75}\nWORDS = 14\n_ratio = 0.5\nPAIR: tuple = (1, 2.5)\n')
    assert float_constants(module) == ["_PENALTY", "LIMITS", "PAIR"]


def test_no_tuning_float_outside_the_settings() -> None:
    """Every number that tunes behaviour lives in bot/settings with a description; a module-level
    float elsewhere is either moved there or listed in NOT_TUNING with the reason it stays."""
    found = {
        (str(path.relative_to(ROOT)), name)
        for package in ("bot", "ingest")
        for path in sorted((ROOT / package).rglob("*.py"))
        if "settings" not in path.relative_to(ROOT).parts
        for name in float_constants(path)
    }
    assert found - NOT_TUNING.keys() == set()
    assert NOT_TUNING.keys() - found == set()  # an entry whose constant is gone is dropped from the list
    pattern = re.compile(r"^_?[A-Z_]+ = \d+\.\d+", re.MULTILINE)  # the plain form, as a second look
    for package in ("bot", "ingest"):
        for path in (ROOT / package).rglob("*.py"):
            if "settings" not in path.relative_to(ROOT).parts:
                names = {m.group(0).split(" =")[0] for m in pattern.finditer(path.read_text(encoding="utf-8"))}
                assert {(str(path.relative_to(ROOT)), n) for n in names} <= NOT_TUNING.keys(), path


def test_a_misspelt_variable_is_named_with_the_nearest_setting() -> None:
    """A misspelt name looked as if it worked (a fuzzing helper's find); real names, and the fuzz tests' own
    variables, say nothing."""
    said = unknown_variables(
        {
            "PAPERBOT_RETREIVAL__K": "1",
            "PAPERBOT_RETRIEVAL__KK": "1",
            "PAPERBOT_RETRIEVAL__K": "5",
            "PAPERBOT_TRIAGE__THEMES__LONGEST_PHRASE": "3",
            "PAPERBOT_UI__AUTH": "a:b",
            "PAPERBOT_FUZZ_CASES": "10",
            "HOME": "/root",
        }
    )
    assert said == [
        "PAPERBOT_RETREIVAL__K names no setting and is ignored; did you mean PAPERBOT_RETRIEVAL__K?",
        "PAPERBOT_RETRIEVAL__KK names no setting and is ignored; did you mean PAPERBOT_RETRIEVAL__K?",
    ]
