"""Readers for evaluation data: a BEIR folder's queries and qrels, and paperbot question files.

A BEIR folder holds `corpus.jsonl`, `queries.jsonl` and `qrels/{split}.tsv` (header line
`query-id corpus-id score`). The corpus itself is read by ingest, not here; nothing here
searches or scores.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.errors import FormatError, MissingPathError
from bot.text import jsonl


@dataclass(frozen=True)
class BeirSplit:
    """The queries of one split and their graded relevant documents."""

    name: str
    corpus: Path
    queries: dict[str, str]  # query id -> text, in qrels order
    qrels: dict[str, dict[str, int]]  # query id -> {corpus id: grade}, only grades > 0


@dataclass(frozen=True)
class Question:
    """One question of a question file; `expected` is empty for off-topic questions."""

    qid: str
    text: str
    kind: str  # "single", "multi" or "offtopic"
    expected: tuple[str, ...] = ()


def is_beir_folder(path: Path) -> bool:
    """Example: is_beir_folder(Path("corpora/scifact")) -> True when it has corpus.jsonl."""
    return path.is_dir() and (path / "corpus.jsonl").is_file()


def splits(folder: Path) -> list[str]:
    """Names of the qrels splits in a BEIR folder. Example: ['test', 'train']"""
    return sorted(p.stem for p in (folder / "qrels").glob("*.tsv"))


def _jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    if not path.is_file():
        raise MissingPathError(f"{path}: no such file; check the path")
    for number, obj in jsonl.read(path, FormatError, "fix or remove the line"):
        if not isinstance(obj, dict):
            raise FormatError(f"{path} line {number}: expected a JSON object, got {type(obj).__name__}")
        yield number, obj


def read_beir(folder: Path, split: str) -> BeirSplit:
    """The queries and qrels of `split` in a BEIR folder (queries without qrels are left out)."""
    if not folder.exists():
        raise MissingPathError(f"{folder}: no such folder; give a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)")
    for name in ("corpus.jsonl", "queries.jsonl"):
        if not (folder / name).is_file():
            raise FormatError(f"{folder}: no {name}; a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/")
    qrels_file = folder / "qrels" / f"{split}.tsv"
    if not qrels_file.is_file():
        have = ", ".join(splits(folder)) or "none"
        raise FormatError(f"{folder}: no qrels/{split}.tsv (splits here: {have}); choose one with --split")
    qrels: dict[str, dict[str, int]] = {}
    for number, line in enumerate(qrels_file.read_text(encoding="utf-8").splitlines(), start=1):
        cells = line.split("\t") if "\t" in line else line.split()
        if not line.strip() or (number == 1 and len(cells) == 3 and not cells[2].strip().lstrip("-").isdigit()):
            continue  # blank line or the header `query-id corpus-id score`
        if len(cells) != 3 or not cells[2].strip().lstrip("-").isdigit():
            raise FormatError(f"{qrels_file} line {number}: expected `query-id<TAB>corpus-id<TAB>score`")
        if int(cells[2]) > 0:
            qrels.setdefault(cells[0].strip(), {})[cells[1].strip()] = int(cells[2])
    texts: dict[str, str] = {}
    for number, obj in _jsonl(folder / "queries.jsonl"):
        if "_id" not in obj or not isinstance(obj.get("text"), str):
            raise FormatError(f'{folder / "queries.jsonl"} line {number}: needs "_id" and "text"')
        texts[str(obj["_id"])] = obj["text"]
    missing = [qid for qid in qrels if qid not in texts]
    if missing:
        raise FormatError(
            f"{qrels_file}: {len(missing)} query ids are not in queries.jsonl (e.g. {missing[0]!r}); "
            "the qrels and queries files do not belong together"
        )
    queries = {qid: texts[qid] for qid in qrels}
    return BeirSplit(split, folder / "corpus.jsonl", queries, qrels)


def read_questions(path: Path, offtopic: bool = False) -> list[Question]:
    """Questions of a file like tests/data/questions.jsonl (or offtopic.jsonl when `offtopic`)."""
    out: list[Question] = []
    for number, obj in _jsonl(path):
        text, qid = obj.get("question"), str(obj.get("id", number))
        if not isinstance(text, str) or not text.strip():
            raise FormatError(f'{path} line {number}: needs a non-empty "question"')
        if offtopic:
            out.append(Question(qid, text, "offtopic"))
            continue
        expected = obj.get("expected")
        if not isinstance(expected, list) or not expected or not all(isinstance(s, str) and s for s in expected):
            raise FormatError(
                f'{path} line {number}: needs "expected", a list of verbatim snippets of the expected '
                "abstracts; off-topic questions go in a separate file given with --offtopic"
            )
        out.append(Question(qid, text, str(obj.get("kind", "single")), tuple(expected)))
    if not out:
        raise FormatError(f"{path}: no questions; write one JSON object per line")
    return out


def read_judgments(path: Path) -> dict[str, dict[str, bool]]:
    """Relevance judgments of papers no question file labels, e.g. distractors that came first.

    One JSON object per line: {"question": "q02", "id": "<the paper's record id>", "relevant":
    true, "title": ..., "reason": ...} (title and reason are for people). Returns
    {question id: {record id: relevant}}. Example: {"q02": {"Fk3x9": True}}
    """
    out: dict[str, dict[str, bool]] = {}
    for number, obj in _jsonl(path):
        qid, record, relevant = obj.get("question"), obj.get("id"), obj.get("relevant")
        if not isinstance(qid, str) or not qid or not isinstance(record, str) or not record:
            raise FormatError(
                f'{path} line {number}: needs "question" (a question id) and "id" (the judged paper\'s record id)'
            )
        if not isinstance(relevant, bool):
            raise FormatError(f'{path} line {number}: "relevant" must be true or false')
        judged = out.setdefault(qid, {})
        if judged.get(record, relevant) != relevant:
            raise FormatError(f"{path} line {number}: question {qid} judges paper {record} both ways; keep one line")
        judged[record] = relevant
    if not out:
        raise FormatError(f"{path}: no judgments; write one JSON object per line")
    return out
