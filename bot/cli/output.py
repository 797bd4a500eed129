"""How the command line writes: JSON on stdout, and notices and warnings on stderr in paperbot's words.

It formats no results itself (bot.render does) and decides nothing about exit codes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any


def print_json(obj: Any) -> None:
    """One JSON value on one line, non-ASCII kept as is (labels such as 'χ-Bench')."""
    print(json.dumps(obj, ensure_ascii=False))


def print_notices(answers: Iterable[Any]) -> None:
    """A requested language model that did not answer is said on stderr, whatever the output format."""
    for notice in dict.fromkeys(a.notice for a in answers if a.notice):
        print(f"paperbot: notice: {notice}", file=sys.stderr)


def print_warnings(warnings: Iterable[str]) -> None:
    """What ingest skipped or could not read, one `paperbot: warning:` line each."""
    for warning in warnings:
        print(f"paperbot: warning: {warning}", file=sys.stderr)
