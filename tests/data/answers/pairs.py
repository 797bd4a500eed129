"""Blind pairs for judging: two answer files side by side, in a random order per question.

    .venv/bin/python tests/data/answers/pairs.py --store /tmp/judged --old before.jsonl --new after.jsonl \
        --out pairs/ --judges 3 --seed 14

Writes pairs/batch_N.md (what a judge reads: the rubric, then per question the question, the
question before it for follow-ups, the note on what a full answer contains, every cited abstract
in full, and answers A and B) and pairs/key.json ({id: "old" or "new" for A}), which judges must
not see. Score the judgments with score.py. See docs/answers.md.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from bot.app import Paperbot
from bot.errors import FormatError
from bot.settings import load_settings
from bot.text import jsonl

HERE = Path(__file__).parent


def _rows(path: Path) -> dict[str, dict]:
    return {r["id"]: r for _, r in jsonl.read(path, FormatError, "fix the line")}


def _answer(row: dict) -> str:
    body = row["answer"] if row["answer"] is not None else f"(error shown to the user) {row['error']}"
    cites = "\n".join(f"[{c['n']}] {c['label']} = abstract {c['paper_id']}" for c in row["citations"])
    return body + ("\n\nCitations:\n" + cites if cites else "")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True, help="a store holding the bundled seeds")
    parser.add_argument("--old", type=Path, required=True)
    parser.add_argument("--new", type=Path, required=True)
    parser.add_argument("--questions", type=Path, default=HERE / "questions.jsonl")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--judges", type=int, default=3)
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args(argv)
    papers = Paperbot(load_settings(store=args.store)).papers()
    old, new = _rows(args.old), _rows(args.new)
    questions = [q for _, q in jsonl.read(args.questions, FormatError, "fix the line")]
    rng = random.Random(args.seed)
    key: dict[str, str] = {}
    batches: list[list[str]] = [[] for _ in range(args.judges)]
    rubric = (HERE / "rubric.md").read_text(encoding="utf-8")
    for i, q in enumerate(questions):
        first, second = (old, new) if rng.random() < 0.5 else (new, old)
        key[q["id"]] = "old" if first is old else "new"
        a, b = first[q["id"]], second[q["id"]]
        cited = sorted({c["paper_id"] for r in (a, b) for c in r["citations"]})
        lines = [f"## {q['id']}", "", f"Question: {q['question']}"]
        if q.get("previous"):
            lines.append(f"Asked just before: {q['previous']}")
        lines += [f"What a full answer contains (note): {q['note']}", "", "Cited abstracts:"]
        lines += [
            f"- abstract {pid}: {papers[pid].display}" if pid in papers else f"- abstract {pid}: (missing)"
            for pid in cited
        ]
        lines += ["", "### Answer A", "", _answer(a), "", "### Answer B", "", _answer(b), ""]
        batches[i % args.judges].append("\n".join(lines))
    args.out.mkdir(parents=True, exist_ok=True)
    for n, batch in enumerate(batches, start=1):
        (args.out / f"batch_{n}.md").write_text(rubric + "\n\n# Questions\n\n" + "\n".join(batch), encoding="utf-8")
    (args.out / "key.json").write_text(json.dumps(key, indent=1) + "\n", encoding="utf-8")
    print(f"{len(questions)} pairs in {args.judges} batches under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
