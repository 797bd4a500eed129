"""Shared fixtures: settings for a store folder, the seeds ingested once, small corpora, the CLI.

Everything is real: a Chroma store in a temporary folder and the bundled MiniLM model. The
seeds take ~40 s to embed, so `seeded_store` ingests them once per session; tests that change
a store work on `store_copy` (a copy of it) or on a small corpus of their own.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot import bundled
from bot.app import Paperbot
from bot.cli import main as cli_main
from bot.settings import Settings
from bot.store.registry import Registry
from bot.types import IngestReport, Paper
from ingest import pipeline

# Small invented abstracts, each about something no seed paper covers; they embed in well under
# a second. Keys are the labels ingest gives them.
SMALL_ABSTRACTS = {
    "PenguinCount": (
        "We propose PenguinCount, a convolutional network that counts penguins in drone images "
        "of Antarctic breeding colonies. PenguinCount halves the counting error of prior "
        "detectors on three colonies and runs on a single laptop in the field."
    ),
    "TideBench": (
        "We introduce TideBench, a benchmark for forecasting coastal tide heights from sparse "
        "harbour gauge records. Models trained on TideBench transfer to unseen harbours, and "
        "we report the first calibrated uncertainty baselines for storm surges."
    ),
    "QuillNet": (
        "We present QuillNet, a language model that restores damaged medieval manuscripts by "
        "predicting missing letters from ink traces. QuillNet recovers most erased words on a "
        "held-out monastic codex and helps palaeographers date fragments."
    ),
    "Beekeeping sensors": (
        "Beekeeping sensors are now cheap enough to record hive temperature and sound every "
        "minute. We show that a "
        "small recurrent model detects queen loss from hive acoustics two days before "
        "beekeepers notice it, across forty apiaries."
    ),
}


@pytest.fixture(scope="session")
def small_abstracts() -> dict[str, str]:
    """{label: abstract} of four invented abstracts that embed in well under a second."""
    return dict(SMALL_ABSTRACTS)


@pytest.fixture(scope="session", autouse=True)
def _default_settings_env() -> Iterator[None]:
    """Tests see paperbot's defaults whatever PAPERBOT_* variables the shell exports."""
    with pytest.MonkeyPatch.context() as patch:
        for key in [k for k in os.environ if k.startswith("PAPERBOT_")]:
            patch.delenv(key)
        yield


@pytest.fixture(scope="session")
def seeds_dir() -> Path:
    """The repository's bundled seed abstracts (never modified by tests)."""
    seeds = bundled.folder("seeds")
    assert sorted(seeds.glob("*.txt")), f"no seed files in {seeds}"
    return seeds


@pytest.fixture(scope="session")
def settings_for(seeds_dir: Path) -> Callable[..., Settings]:
    """settings_for(store_path, **overrides) -> Settings for a store in that folder.

    Example: settings_for(tmp_path / "store", chroma_url="http://127.0.0.1:8123")
    """

    def make(store: Path, **overrides: Any) -> Settings:
        values: dict[str, Any] = {"store": store, "chroma_url": None, "seeds": seeds_dir}
        values.update(overrides)
        return Settings(**values)

    return make


def ingest_into(target: Paperbot | Settings, paths: list[Path] | None = None, **options: Any) -> IngestReport:
    """Run the ingest pipeline into a Paperbot's store (or a new one's for Settings), as `paperbot
    ingest` does: `paths`, or the settings' seeds; `options` are pipeline.run's (prune, rebuild, ...)."""
    bot = target if isinstance(target, Paperbot) else Paperbot(target)
    return pipeline.run(paths or [bot.settings.seeds], bot.settings, bot.store, bot.embedder.fresh, **options)


@pytest.fixture(scope="session")
def run_ingest() -> Callable[..., IngestReport]:
    """run_ingest(bot_or_settings, [paths], prune=..., rebuild=..., progress=...) -> IngestReport.

    Example: run_ingest(settings_for(tmp_path / "store"), [path]).added == 2
    """
    return ingest_into


@dataclass(frozen=True)
class Seeded:
    settings: Settings
    report: IngestReport


@pytest.fixture(scope="session")
def _seeded(tmp_path_factory: pytest.TempPathFactory, settings_for: Callable[..., Settings]) -> Seeded:
    settings = settings_for(tmp_path_factory.mktemp("seeded") / "store")
    report = ingest_into(settings)
    return Seeded(settings, report)


@pytest.fixture(scope="session")
def seeded_store(_seeded: Seeded) -> Settings:
    """Settings of a store holding the bundled seeds (ingested once per session; read only)."""
    return _seeded.settings


@pytest.fixture(scope="session")
def seed_report(_seeded: Seeded) -> IngestReport:
    """What the one-time ingest of the seeds into `seeded_store` reported."""
    return _seeded.report


@pytest.fixture(scope="session")
def seeded_bot(seeded_store: Settings) -> Paperbot:
    """A Paperbot on the seeded store, for tests that only read it."""
    return Paperbot(seeded_store)


@pytest.fixture
def store_copy(seeded_store: Settings, tmp_path: Path, settings_for: Callable[..., Settings]) -> Settings:
    """Settings of a private copy of the seeded store, free to change."""
    target = tmp_path / "store-copy"
    shutil.copytree(seeded_store.store, target)
    return settings_for(target)


@pytest.fixture
def write_abstracts() -> Callable[..., Path]:
    """write_abstracts(path, [text, ...], header="ICML 2025") writes a seed-style text file.

    One abstract per paragraph, paragraphs separated by a blank line, an optional header line.
    """

    def write(path: Path, abstracts: list[str], header: str | None = "ICML 2025") -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        paragraphs = ([header] if header else []) + list(abstracts)
        path.write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
        return path

    return write


@dataclass(frozen=True)
class SeedParagraph:
    file: Path
    line: int
    record: int
    text: str


def parse_seed_file(path: Path) -> tuple[str, list[SeedParagraph]]:
    """(header line, abstracts) of one seed file, parsed independently of ingest.readers."""
    lines = path.read_text(encoding="utf-8").split("\n")
    blocks: list[tuple[int, str]] = []
    start: int | None = None
    for number, line in enumerate([*lines, ""], start=1):
        if line.strip() and start is None:
            start = number
        elif not line.strip() and start is not None:
            blocks.append((start, "\n".join(x.strip() for x in lines[start - 1 : number - 1])))
            start = None
    (_, header), *rest = blocks
    return header, [SeedParagraph(path, ln, i, t) for i, (ln, t) in enumerate(rest, start=1)]


@pytest.fixture(scope="session")
def seed_paragraphs(seeds_dir: Path) -> list[SeedParagraph]:
    """Every abstract paragraph of every seed file, in file order (duplicates included)."""
    return [p for f in sorted(seeds_dir.glob("*.txt")) for p in parse_seed_file(f)[1]]


@pytest.fixture(scope="session")
def seed_headers(seeds_dir: Path) -> dict[str, str]:
    """{seed file name: its header line}."""
    return {f.name: parse_seed_file(f)[0] for f in sorted(seeds_dir.glob("*.txt"))}


@dataclass(frozen=True)
class StoreSnapshot:
    """Everything an ingest may change, read fresh from disk."""

    papers: dict[str, Paper]
    version: int
    fingerprint: str | None
    vectors: int
    vector_papers: frozenset[str]


@pytest.fixture
def snapshot() -> Callable[[Settings], StoreSnapshot]:
    """snapshot(settings) -> the store's current registry content, version and vector count."""

    def take(settings: Settings) -> StoreSnapshot:
        registry = Registry(settings.store)
        try:
            papers = dict(registry.papers())
            version, fingerprint = registry.version(), registry.get_meta("fingerprint")
        finally:
            registry.close()
        bot = Paperbot(settings)
        try:
            return StoreSnapshot(
                papers, version, fingerprint, bot.store.vectors.count(), frozenset(bot.store.vector_paper_ids())
            )
        finally:
            bot.store.close()

    return take


# The lines bot.progress writes when stderr is not a terminal.
_PROGRESS = re.compile(r"^(embedding |embedding: |embedded )[\d,]+ ")


@dataclass(frozen=True)
class CliRun:
    code: int
    out: str
    err: str

    @property
    def messages(self) -> str:
        """stderr without the progress lines of embedding (warnings and errors only)."""
        return "".join(line for line in self.err.splitlines(keepends=True) if not _PROGRESS.match(line))

    def json(self) -> Any:
        return json.loads(self.out)

    def json_lines(self) -> list[Any]:
        return [json.loads(line) for line in self.out.splitlines() if line.strip()]


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., CliRun]:
    """run_cli("search", "--json", ...) runs `paperbot` in this process (the model loads once)."""

    def run(*args: str | Path) -> CliRun:
        capsys.readouterr()
        code = cli_main([str(a) for a in args])
        out, err = capsys.readouterr()
        return CliRun(code, out, err)

    return run


# Pieces that have broken text tools before: LaTeX, markdown, control and format characters,
# byte-order marks, bidi overrides, long tokens, punctuation-only openings.
TRICKY = [
    "\u202e", "\ufeff", "\r", "\r\n", "\t", "\x0b", "\x0c", "\x1c", "\u2028", "\u00a0", "\u200b",
    "$", "$$", "$x^{2", "\\", "\\\\", "\\frac{", "\\begin{equation}", "\\cite{a}", "\\textbf{", "\\(", "\\[",
    "{", "}", "%", "~", "^", "_", "&", "&amp;", "<script>", "```", "#", "|", "𝔼", "χ", "—",
    '"', "'", ",", ":", ";", "...", "?", "e.g.", "\n", "\n\n", "A" * 300, "-" * 50, "a-b-c-d-e-f", "0" * 40,
]  # fmt: skip


def _mangle(rng: random.Random, text: str) -> str:
    """`text` with up to 30 random insertions, deletions, duplications and random characters."""
    chars = list(text)
    for _ in range(rng.randint(1, 30)):
        at, roll = rng.randint(0, len(chars)), rng.random()
        if roll < 0.4:
            chars[at:at] = rng.choice(TRICKY)
        elif roll < 0.6:
            del chars[at : at + rng.randint(1, 200)]
        elif roll < 0.8:
            chars[at:at] = [chr(rng.choice([rng.randint(1, 0xD7FF), rng.randint(0xE000, 0x2FFFF)])) for _ in range(9)]
        else:
            start = rng.randint(0, len(chars))
            chars[at:at] = chars[start : start + rng.randint(1, 300)]
    return "".join(chars).replace("\x00", "")  # NUL marks a binary file, tested elsewhere


@pytest.fixture(scope="session")
def mangle() -> Callable[[random.Random, str], str]:
    """mangle(rng, text) -> text with random insertions, deletions and odd characters (fuzzing)."""
    return _mangle
