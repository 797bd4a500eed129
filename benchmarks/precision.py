"""How fast ingest's model embeds chunks in float32 and in bfloat16 on this machine (issue 18's precision lever).

Not a test (pytest does not collect it): a benchmark that prints measured numbers. It cuts the first
--papers abstracts of a JSONL corpus into the chunks ingest embeds, then embeds them all with
`Embedder.embed_bulk` in each precision, alternately, --runs times, after one warm-up each, and prints
the abstracts per second of each run, their medians, their ratio, and what `paperbot ingest` would choose
for a new store here (`Embedder.faster_precision`, which times a smaller batch the same way).

Run: .venv/bin/python benchmarks/precision.py --papers 150 --runs 3
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from token_budget import CORPUS, papers

from bot.embedder import Embedder
from bot.settings import ChunkSettings, EmbedSettings
from bot.settings.stored import native_bfloat16
from bot.text.chunking import paper_chunks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="JSONL of abstracts (default: %(default)s)")
    parser.add_argument("--papers", type=int, default=150, help="abstracts embedded per run (default 150)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each precision, alternated (default 3)")
    args = parser.parse_args()
    if not args.corpus.is_file():
        parser.exit(2, f"no corpus at {args.corpus}; give a JSONL of abstracts with --corpus\n")
    try:
        chosen = papers(args.corpus, max(1, args.papers))
    except ValueError as exc:
        parser.exit(2, f"{exc}\n")
    if not chosen:
        parser.exit(2, f"{args.corpus} holds no abstracts; give a JSONL of records with an 'abstract' field\n")
    texts = sorted((c.text for p in chosen for c in paper_chunks(p, ChunkSettings())), key=len, reverse=True)
    model = Embedder(EmbedSettings(precision="float32"))
    rates: dict[str, list[float]] = {"float32": [], "bfloat16": []}
    for precision in rates:
        model.embed_bulk(texts[:16], precision)  # type: ignore[arg-type]  # warm-up
    for run in range(max(1, args.runs)):
        for precision in rates:
            started = time.perf_counter()
            model.embed_bulk(texts, precision)  # type: ignore[arg-type]
            rates[precision].append(len(chosen) / (time.perf_counter() - started))
            print(f"run {run + 1}: {precision} {rates[precision][-1]:.1f} abstracts/s", flush=True)
    median = {p: statistics.median(r) for p, r in rates.items()}
    print(f"{len(chosen)} abstracts, {len(texts)} chunks; native bfloat16 flag: {native_bfloat16()}")
    print(f"median float32 {median['float32']:.1f}, bfloat16 {median['bfloat16']:.1f} abstracts/s: "
          f"bfloat16 / float32 {median['bfloat16'] / median['float32']:.2f}x")  # fmt: skip
    print(f"a new store here is built in {model.faster_precision()} (Embedder.faster_precision)")


if __name__ == "__main__":
    main()
