"""How long ingest's labels take (ingest/labels.py `assign`) for the untitled abstracts of a corpus.

Not a test (pytest does not collect it): a benchmark that prints measured numbers. Labels every
abstract of a JSONL corpus as if it had no title (the case that reads the abstract for a name),
--runs times, and prints the median time, the rate, a digest of the labels (so that two versions
of the code can be checked to give the same labels) and how many labels are a name the abstract
introduces, a descriptive title, or its opening words. A million-paper ingest labels before it writes
(docs/scale.md).

Run: .venv/bin/python benchmarks/labels.py                       # the 8,647 ML-conference abstracts
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

from token_budget import papers

from ingest import labels

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "ml_conf_abstracts.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="a JSONL corpus with an 'abstract' field")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    try:
        read = papers(args.corpus, sys.maxsize)  # the JSONL reader of benchmarks/token_budget.py
    except (OSError, UnicodeDecodeError) as exc:
        parser.exit(2, f"cannot read {args.corpus}: {exc}; give a JSONL corpus with --corpus\n")
    except ValueError as exc:  # a line that is not a JSON object, named with its file and line
        parser.exit(2, f"{exc}\n")
    texts = {f"p{n:07d}": paper.text for n, paper in enumerate(read)}  # read as untitled
    times, got = [], {}
    for _ in range(args.runs):
        started = time.perf_counter()
        got = labels.assign(texts, set())
        times.append(time.perf_counter() - started)
    median = statistics.median(times)
    digest = hashlib.sha256(json.dumps(got, sort_keys=True).encode()).hexdigest()[:16]
    # Where each label came from, in assign's order: a name, a descriptive title, else the opening words.
    kinds = {"name": 0, "described": 0, "opening_words": 0}
    for text in texts.values():
        kind = "name" if labels.candidates(text) else "described" if labels.described(text) else "opening_words"
        kinds[kind] += 1
    print(
        json.dumps(
            {
                "papers": len(texts),
                "runs_s": [round(t, 2) for t in times],
                "median_s": round(median, 2),
                "papers_per_s": round(len(texts) / median),
                "labels_digest": digest,
                "labels_from": kinds,
            }
        )
    )


if __name__ == "__main__":
    main()
