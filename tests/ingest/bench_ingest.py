"""Ingest throughput against the embedding model's own limit, both measured in the same run.

Not a test (pytest does not collect it): a benchmark that prints measured numbers, for docs/ingest.md.
Run: .venv/bin/python tests/ingest/bench_ingest.py ../shared/corpora/scifact/corpus.jsonl --papers 1000 --runs 3

Each run, in one process with the model already loaded, times two things in turn:
- **model limit**: the model alone embeds exactly the chunk texts that ingest embeds, in one call
  (sentence-transformers sorts them by length and batches them, the fastest way to embed them);
- **ingest**: `ingest.pipeline.run` of the same papers into a fresh store: reading, chunking,
  embedding, writing to Chroma and the registry, and the lexical index.
It prints the median of each and ingest's papers per second as a share of the model's.
`--batch-sizes 16,32,64` also times the model alone at other batch sizes (the setting
`embed.batch_size`, 16 by default).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import tempfile
import time
from pathlib import Path

from bot import embedder
from bot.app import Paperbot
from bot.settings import Settings
from bot.text.chunking import paper_chunks
from ingest import pipeline
from ingest.plan import merge_records
from ingest.readers import read_paths


def sample(corpus: Path, papers: int, folder: Path) -> Path:
    """The first `papers` lines of a JSONL corpus, as a file of their own."""
    out = folder / f"sample-{papers}.jsonl"
    with corpus.open(encoding="utf-8") as lines:
        out.write_text("".join(itertools.islice(lines, papers)), encoding="utf-8")
    return out


def chunk_texts(path: Path, settings: Settings) -> list[str]:
    """The chunk texts ingest embeds for the papers of `path`."""
    papers = merge_records(read_paths([path]).records).values()
    return [c.text for p in papers for c in paper_chunks(p, settings.chunk)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="a JSONL corpus, e.g. ../shared/corpora/scifact/corpus.jsonl")
    parser.add_argument("--papers", type=int, default=1000, help="first N records (default 1000)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each (default 3); medians are reported")
    parser.add_argument("--batch-sizes", default="", help="also time the model alone at these batch sizes, e.g. 16,64")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="paperbot-bench-ingest-") as tmp:
        folder = Path(tmp)
        data = sample(args.corpus, args.papers, folder)
        settings = Settings(store=folder / "unused")
        texts = chunk_texts(data, settings)
        started = time.perf_counter()
        model = embedder.load(settings.embed)
        load = time.perf_counter() - started
        model.embed(texts[:64])  # warm-up: the first calls pay one-off setup costs
        times: dict[str, list[float]] = {"model limit": [], "ingest": []}
        sizes = [int(size) for size in args.batch_sizes.split(",") if size.strip()]
        others = {size: embedder.Embedder(settings.embed.model_copy(update={"batch_size": size})) for size in sizes}
        for run in range(args.runs):
            for size, other in others.items():
                started = time.perf_counter()
                other.embed(texts)
                times.setdefault(f"model limit, batch {size}", []).append(time.perf_counter() - started)
            started = time.perf_counter()
            model.embed(texts)
            times["model limit"].append(time.perf_counter() - started)
            bot = Paperbot(Settings(store=folder / f"store-{run}"))
            started = time.perf_counter()
            report = pipeline.run([data], bot.settings, bot.store, bot.embedder.fresh)
            times["ingest"].append(time.perf_counter() - started)
            assert report.added == report.papers, report
            print(
                f"run {run + 1}: model limit {times['model limit'][-1]:.1f} s, ingest {times['ingest'][-1]:.1f} s",
                flush=True,
            )
        papers = report.papers
        medians = {name: statistics.median(values) for name, values in times.items()}
        result = {
            "papers": papers,
            "chunks": len(texts),
            "runs": args.runs,
            "model load s": round(load, 2),
            **{f"{name} s (median)": round(value, 2) for name, value in medians.items()},
            **{f"{name} papers/s": round(papers / value, 2) for name, value in medians.items()},
            "ingest / model limit": round(medians["model limit"] / medians["ingest"], 3),
        }
        print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
