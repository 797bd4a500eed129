"""Reading JSON Lines files (one JSON value per line) for question, query, history and BEIR files.

Errors name the file and the line and say what to do; the caller chooses the error type and
the fix to suggest for a bad line. It does not check what the values hold. Abstract files
are read by ingest.readers, which also handles other encodings and skipping bad lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bot.errors import PaperbotError


def read(path: Path, error: type[PaperbotError], fix: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) for every non-blank line of `path`, a UTF-8 JSON Lines file.

    Example: read(Path("q.jsonl"), QueryError, "fix or remove the line") -> (1, {...}), (3, {...})
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise error(f"{path}: cannot read the file ({exc.strerror}); check the path") from exc
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not valid UTF-8 (byte {exc.start}); save the file as UTF-8") from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{path} line {number}: not valid JSON ({exc.msg}); {fix}") from exc


def read_document(path: Path, error: type[PaperbotError], where: str, what: str) -> list[Any]:
    """The values of `path`: a JSON list's items, a lone JSON value, or one value per line (JSON Lines).

    `where` starts every message (e.g. "--history turns.json") and `what` says what a value is.
    Example: read_document(Path("turns.jsonl"), QueryError, "--history turns.jsonl", "...") -> [{...}, {...}]
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{where}: cannot read ({exc.strerror}); check the path") from exc
    except UnicodeDecodeError as exc:
        raise error(f"{where}: not valid UTF-8; save the file as UTF-8") from exc
    try:
        data = json.loads(text) if text.strip() else []
        return data if isinstance(data, list) else [data]
    except json.JSONDecodeError:
        try:  # JSON lines, as `paperbot ask --json >> history.jsonl` writes them
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise error(f"{where}: not JSON ({exc.msg}); give a list of {what} or one per line") from exc
