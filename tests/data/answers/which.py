"""Precision and recall of "Which papers ...?" answers on the triage topics with known answer sets.

    .venv/bin/python tests/data/answers/which.py --store /tmp/judged

Asks "Which papers are about TOPIC?" and "What papers study TOPIC?" for every topic of
tests/data/triage_topics.jsonl (each lists snippets identifying every relevant seed abstract, and
some that are acceptable either way) and compares the papers the answer cites with the expected
ones. Prints one line per question and {"questions", "precision", "recall", "f1"} (micro, over all
cited and expected papers; an acceptable paper cited is not counted against precision). See
docs/answers.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bot.app import Paperbot
from bot.errors import FormatError
from bot.settings import load_settings
from bot.text import jsonl

TOPICS = Path(__file__).resolve().parents[1] / "triage_topics.jsonl"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True, help="a store holding the bundled seeds")
    parser.add_argument("--topics", type=Path, default=TOPICS)
    args = parser.parse_args(argv)
    bot = Paperbot(load_settings(store=args.store))
    papers = bot.papers()
    hit = right = cited_total = expected_total = asked = 0
    for _, topic in jsonl.read(args.topics, FormatError, "fix the line"):

        def find(snippets: list[str]) -> set[str]:
            return {pid for pid, p in papers.items() if any(s in p.display for s in snippets)}

        expected, fine = find(topic["expected"]), find(topic.get("acceptable", []))
        for question in (f"Which papers are about {topic['topic']}?", f"What papers study {topic['topic']}?"):
            answer = bot.ask(question)
            cited = {c.paper.paper_id for c in answer.citations} if not answer.abstained else set()
            hit += len(cited & expected)
            right += len(cited & (expected | fine))
            cited_total += len(cited)
            expected_total += len(expected)
            asked += 1
            print(f"cited {len(cited):>2}  expected {len(expected):>2}  found {len(cited & expected):>2}  {question}")
    precision = right / cited_total if cited_total else 1.0
    recall = hit / expected_total if expected_total else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    summary = {"questions": asked, "precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3)}
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
