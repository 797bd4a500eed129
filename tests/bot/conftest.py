"""The paraphrased question set of tests/data and a resolver for its expected abstracts."""

import json
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.fixture(scope="session")
def questions() -> list[dict]:
    return [json.loads(line) for line in (DATA / "questions.jsonl").read_text().splitlines()]


@pytest.fixture(scope="session")
def offtopic() -> list[dict]:
    return [json.loads(line) for line in (DATA / "offtopic.jsonl").read_text().splitlines()]


@pytest.fixture
def expected_ids(seeded_bot):
    """Paper ids of the abstracts containing each snippet (each snippet names exactly one)."""

    def resolve(snippets: list[str]) -> set[str]:
        ids = set()
        for snippet in snippets:
            found = [pid for pid, p in seeded_bot.papers().items() if snippet in p.text]
            assert len(found) == 1, snippet
            ids.add(found[0])
        return ids

    return resolve
