"""Answers to the judged question set, and whether questions are taken as follow-ups when they should be.

    .venv/bin/paperbot --store /tmp/judged ingest          # the bundled seeds
    .venv/bin/python tests/data/answers/produce.py --store /tmp/judged --out answers.jsonl

Writes one line per question of questions.jsonl: {"id", "question", "previous", "answer",
"citations": [{"n", "label", "paper_id"}], "error", "standalone_question", "restricted_to"}. A
follow-up is asked after its `previous` question's answer. Then every question that is not a
follow-up is asked again after another question's answer: it must be searched as asked (a new
search, whatever pronouns it uses). Prints {"questions", "self_contained", "taken_as_followup",
"followups", "followups_resolved"} and the ids of failures. See docs/answers.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bot.app import Paperbot
from bot.errors import FormatError, PaperbotError
from bot.settings import load_settings
from bot.text import jsonl
from bot.types import Answer

HERE = Path(__file__).parent


def _row(question: dict, answer: Answer | None, error: str | None) -> dict:
    return {
        "id": question["id"],
        "question": question["question"],
        "previous": question.get("previous"),
        "answer": answer.markdown if answer else None,
        "citations": [{"n": c.n, "label": c.paper.label, "paper_id": c.paper.paper_id} for c in answer.citations]
        if answer
        else [],
        "error": error,
        "standalone_question": answer.standalone_question if answer else None,
        "restricted_to": list(answer.restricted_to) if answer else [],
    }


def _ask(bot: Paperbot, text: str, previous: Answer | None = None) -> tuple[Answer | None, str | None]:
    try:
        return bot.ask(text, previous=previous), None
    except PaperbotError as exc:
        return None, str(exc)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True, help="a store holding the bundled seeds")
    parser.add_argument("--questions", type=Path, default=HERE / "questions.jsonl")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    bot = Paperbot(load_settings(store=args.store))
    questions = [q for _, q in jsonl.read(args.questions, FormatError, "fix the line")]
    rows = []
    for q in questions:
        previous = _ask(bot, q["previous"])[0] if q.get("previous") else None
        answer, error = _ask(bot, q["question"], previous)
        rows.append(_row(q, answer, error))
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")

    standalone = [q for q in questions if q.get("intent") != "followup"]
    taken = []
    for i, q in enumerate(standalone):
        other = standalone[(i + 1) % len(standalone)]
        previous = _ask(bot, other["question"])[0]
        answer, _ = _ask(bot, q["question"], previous)
        if previous is not None and previous.citations and (answer is None or answer.restricted_to):
            taken.append(q["id"])
    followups = [r for r, q in zip(rows, questions, strict=True) if q.get("intent") == "followup"]
    unresolved = [
        r["id"] for r in followups if not (r["restricted_to"] or (r["error"] and "there is no" in r["error"]))
    ]
    summary = {
        "questions": len(questions),
        "self_contained": len(standalone),
        "taken_as_followup": len(taken),
        "followups": len(followups),
        "followups_resolved": len(followups) - len(unresolved),
        "taken_ids": taken,
        "unresolved_ids": unresolved,
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
