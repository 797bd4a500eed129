"""Fuzzed input: mangled seed text, JSONL and CSV never crash ingest's reading, labelling,
chunking or indexing. Each file either reads, or fails with an InputError naming the file.

The cases are random but seeded, so a failure reproduces. More cases, for a longer hunt:
PAPERBOT_FUZZ_CASES=2000 PAPERBOT_FUZZ_SEED=7 .venv/bin/python -m pytest -q tests/ingest/test_fuzz.py
Nothing here embeds: the model is not needed.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.errors import InputError
from bot.settings import ChunkSettings, LexicalSettings
from bot.store.store import lexical_index
from bot.text.chunking import paper_chunks
from ingest import labels
from ingest.plan import merge_records
from ingest.readers import read_paths

CASES = int(os.environ.get("PAPERBOT_FUZZ_CASES", "150"))
SEED = int(os.environ.get("PAPERBOT_FUZZ_SEED", "1"))
FIELDS = ["abstract", "text", "title", "authors", "year", "id", "venue", "url", "other"]
Mangle = Callable[[random.Random, str], str]


def jsonl_file(rng: random.Random, paragraphs: list[str]) -> str:
    lines = []
    for paragraph in paragraphs:
        record: dict[str, object] = {rng.choice(FIELDS): paragraph}
        record["abstract"] = paragraph if rng.random() < 0.8 else rng.choice([None, 5, [], {}, "", paragraph])
        if rng.random() < 0.3:
            record["authors"] = rng.choice([["A. Author", 1], "X; Y", None, 3, [None]])
        if rng.random() < 0.3:
            record["year"] = rng.choice(["2020", 2020.5, "abc", -1, None, 10**20, True])
        if rng.random() < 0.2:
            record["title"] = rng.choice([None, 1, [], "", "T" * 5000, paragraph[:80]])
        line = json.dumps(record, ensure_ascii=rng.random() < 0.5)
        lines.append(line[: rng.randint(0, len(line))] if rng.random() < 0.1 else line)
    return "\n".join(lines)


def csv_file(rng: random.Random, paragraphs: list[str], mangle: Mangle) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    columns = rng.sample(FIELDS, rng.randint(1, 5))
    writer.writerow(columns)
    for paragraph in paragraphs:
        row = [paragraph if rng.random() < 0.7 else mangle(rng, 'x, "y') for _ in columns]
        writer.writerow(row[: rng.randint(0, len(columns) + 1)])
    text = buffer.getvalue()
    return mangle(rng, text) if rng.random() < 0.2 else text


def cases(seeds_dir: Path, folder: Path, mangle: Mangle) -> list[Path]:
    rng = random.Random(SEED)
    seeds = [p.read_text(encoding="utf-8") for p in sorted(seeds_dir.glob("*.txt"))[:3]]
    files = []
    for number in range(CASES):
        kind = rng.choice(["txt", "jsonl", "csv"])
        text = mangle(rng, rng.choice(seeds))
        paragraphs = text.split("\n\n")[:20]
        body = {"txt": text, "jsonl": jsonl_file(rng, paragraphs), "csv": csv_file(rng, paragraphs, mangle)}[kind]
        path = folder / f"case-{number:04d}.{kind}"
        path.write_text(body, encoding="utf-8", errors="replace")
        files.append(path)
    return files


def ingest_without_embedding(path: Path, skip_bad: bool) -> int:
    """Everything ingest does before embedding; returns the number of papers."""
    read = read_paths([path], skip_bad=skip_bad)
    assert all(path.name in warning for warning in read.warnings)
    papers = merge_records(read.records)
    titles = {pid: p.title for pid, p in papers.items() if p.title}
    names = labels.assign({pid: p.display for pid, p in papers.items()}, set(), titles)
    for pid, paper in papers.items():
        assert names[pid].strip(), f"empty label for {paper.display[:80]!r}"
        assert paper_chunks(paper, ChunkSettings()), f"no chunks for {paper.display[:80]!r}"
    lexical_index(papers, LexicalSettings())
    return len(papers)


def test_mangled_files_read_or_fail_with_an_error_naming_the_file(
    seeds_dir: Path, tmp_path: Path, mangle: Mangle
) -> None:
    outcomes = {"read": 0, "refused": 0}
    for path in cases(seeds_dir, tmp_path, mangle):
        for skip_bad in (False, True):
            try:
                ingest_without_embedding(path, skip_bad)
                outcomes["read"] += 1
            except InputError as exc:
                assert path.name in str(exc), str(exc)
                outcomes["refused"] += 1
    # Both outcomes occur, so the cases reach past the readers into labels, chunks and the index.
    assert outcomes["read"] > CASES // 4 and outcomes["refused"] > CASES // 10, outcomes


@pytest.mark.parametrize(
    ("abstract", "label"),
    [
        (": the teacher, having access to privileged information, helps. More follows.", "Teacher having access"),
        ("(1) [2] {3}", "1 2 3"),
        ("!!! ... ???", "!!! ... ???"),  # no word at all: the text itself
    ],
)
def test_an_abstract_opening_with_punctuation_still_gets_a_label(abstract: str, label: str) -> None:
    """Found by the fuzzer: an abstract opening with ':' had no label and crashed ingest."""
    assert labels.phrase(abstract) == label
