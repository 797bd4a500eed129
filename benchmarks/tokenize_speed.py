"""How fast paper texts are cut into BM25 terms (bot.text.terms), as the BM25 rebuild after every
ingest cuts every stored paper: the words and the word pairs of the ML-conference abstracts.

Not a test: prints seconds (median of --runs) and a digest of the terms, which must not change when
only speed does.

Run: .venv/bin/python benchmarks/tokenize_speed.py [--corpora ../shared/corpora] [--runs 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time
from pathlib import Path

from bot.text.terms import pair_tokens, tokenize

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", type=Path, default=CORPORA, help="the shared corpora folder")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    source = args.corpora / "ml_conf_abstracts.jsonl"
    if not source.is_file():
        raise SystemExit(f"no {source}; give --corpora")
    with source.open(encoding="utf-8") as lines:
        texts = [json.loads(line)["abstract"] for line in lines if line.strip()]
    seconds = []
    for _ in range(args.runs):
        started = time.perf_counter()
        words = [tokenize(text) for text in texts]
        pairs = [pair_tokens(text) for text in texts]
        seconds.append(time.perf_counter() - started)
    digest = hashlib.sha256(json.dumps([words, pairs]).encode()).hexdigest()[:16]
    print(f"{len(texts):,} abstracts: {statistics.median(seconds):.3f} s (median of {args.runs}); terms {digest}")


if __name__ == "__main__":
    main()
