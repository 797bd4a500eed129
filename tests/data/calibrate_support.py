#!/usr/bin/env python3
"""Calibrate the citation checker's threshold (bot.check) on the seeds; prints the numbers in docs/citations.md.

Usage (from the repo root, on a store holding the bundled seeds; an empty store is filled first):
    .venv/bin/python tests/data/calibrate_support.py [--store .paperbot] [--dense-weight 0.4 0.5 0.6]

Cases, each a sentence and the paper it cites:
  * supported: tests/data/support_cases.jsonl paraphrases, and every sentence of the extractive
    answers to tests/data/questions.jsonl and heldout.jsonl, cited to its own abstract;
  * unsupported: the hand-written fabricated and contradicting claims, each paraphrase cited to the
    other seed abstract nearest to it, and each extractive sentence cited to the next paper its
    answer's search found (a near miss on the same topic).
It prints each group's support scores, the share judged supported at the configured threshold, and
the accuracy of every threshold from 0.50 to 0.75, for each --dense-weight given.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from bot.check import Checker  # noqa: E402

from bot.app import Paperbot  # noqa: E402
from bot.settings import CheckSettings, Settings  # noqa: E402
from bot.types import AnswerSentence, Citation, Paper  # noqa: E402
from ingest import pipeline  # noqa: E402


def _jsonl(name: str) -> list[dict]:
    return [json.loads(line) for line in (HERE / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def cases(bot: Paperbot) -> list[tuple[str, str, Paper, bool]]:
    """(group, sentence, cited paper, should be supported) for every calibration case."""
    papers = list(bot.papers().values())

    def by_snippet(snippet: str) -> Paper:
        (found,) = [p for p in papers if snippet in p.text]
        return found

    out: list[tuple[str, str, Paper, bool]] = []
    for case in _jsonl("support_cases.jsonl"):
        paper = by_snippet(case["paper"])
        out.append((case["kind"], case["sentence"], paper, case["kind"] == "paraphrase"))
        if case["kind"] == "paraphrase":
            hits = bot.search(case["sentence"], k=5).hits
            nearest = next(h.paper for h in hits if h.paper.paper_id != paper.paper_id)
            out.append(("paraphrase, wrong paper", case["sentence"], nearest, False))
    questions = [q["question"] for q in _jsonl("questions.jsonl") + _jsonl("heldout.jsonl")]
    for answer in bot.ask_many(questions):
        if answer.abstained:
            continue
        cited = {c.n: c.paper for c in answer.citations}
        for sentence in answer.sentences:
            own = cited[sentence.citations[0]]
            out.append(("extractive", sentence.text, own, True))
            other = next((h.paper for h in answer.hits if h.paper.paper_id != own.paper_id), None)
            if other is not None:
                out.append(("extractive, next paper", sentence.text, other, False))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", type=Path, default=Path(".paperbot"))
    parser.add_argument("--dense-weight", type=float, nargs="*", default=None, help="weights to try")
    args = parser.parse_args()
    settings = Settings(store=args.store, chroma_url=None)
    bot = Paperbot(settings)
    if bot.paper_count() == 0:
        pipeline.run([settings.seeds], settings, bot.store, bot.embedder.fresh)
    found = cases(bot)
    for weight in args.dense_weight or [settings.check.dense_weight]:
        report(bot, found, settings.check.model_copy(update={"dense_weight": weight}))
    return 0


def report(bot: Paperbot, found: list[tuple[str, str, Paper, bool]], check: CheckSettings) -> None:
    """Score every case with `check` and print the groups and the threshold sweep."""
    checker = Checker(bot.embed, check)
    rows = []
    for group, text, paper, want in found:
        (judged,) = checker.sentences([AnswerSentence(text, (1,))], [Citation(1, paper)])
        numbers_fail = judged.reason.startswith("states numbers")
        rows.append((group, float(judged.support or 0.0), numbers_fail, want))
    threshold = check.supported_at
    print(f"\ndense_weight {check.dense_weight}, supported_at {threshold}, {len(rows)} cases")
    for group in dict.fromkeys(r[0] for r in rows):
        scores = [s for g, s, _, _ in rows if g == group]
        ok = sum((s >= threshold and not nf) for g, s, nf, _ in rows if g == group)
        q = statistics.quantiles(scores, n=10) if len(scores) > 1 else scores * 9
        print(
            f"  {group:<24} n={len(scores):>3}  min {min(scores):.2f}  p10 {q[0]:.2f}  median "
            f"{statistics.median(scores):.2f}  p90 {q[-1]:.2f}  max {max(scores):.2f}  supported {ok}/{len(scores)}"
        )
    print("threshold  accuracy  supported-kept  unsupported-caught   (hand-written cases only in brackets)")
    for step in range(50, 76):
        t = step / 100
        good = [(s >= t and not nf) for _, s, nf, w in rows if w]
        bad = [not (s >= t and not nf) for _, s, nf, w in rows if not w]
        hand = [(s >= t and not nf) == w for g, s, nf, w in rows if not g.startswith("extractive")]
        balanced = (sum(good) / len(good) + sum(bad) / len(bad)) / 2
        print(
            f"  {t:.2f}     {balanced:.3f}     {sum(good)}/{len(good)}        {sum(bad)}/{len(bad)}"
            f"            [{sum(hand)}/{len(hand)}]"
        )


if __name__ == "__main__":
    raise SystemExit(main())
