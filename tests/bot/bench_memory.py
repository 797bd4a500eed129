"""Where a reading process's memory goes: resident size after each step of a search and a triage.

Not a test (pytest does not collect it): a benchmark that prints measured numbers. Each step is
measured in a fresh process, so one step's garbage does not hide in the next one's figure.
Run: .venv/bin/python tests/bot/bench_memory.py --store /tmp/evalstores/mlconf

Steps, in the order a `paperbot search` takes them: the libraries (sentence-transformers, torch,
chromadb), the Chroma client, the registry's papers, the BM25 indices, the chunk vectors (from the
cache beside the store), the corpus aligned on one paper order, the embedding model's weights,
one search; then one triage on top. Sizes are RSS in MB (/proc/self/statm);
"peak" is the process's high-water mark (ru_maxrss).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

STEPS = ("start", "libraries", "chroma", "registry", "bm25", "vectors", "corpus", "model", "search", "triage")


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 2**20


def measure(store: Path, query: str, topic: str) -> dict[str, float]:
    """RSS after each step in this process, and the peak at the end; the steps are the app's own
    (Store.corpus, Retriever, triage), taken one at a time so each can be measured."""
    out = {"start": _rss_mb()}
    import sentence_transformers  # noqa: F401  (imported by the app when the model first loads)

    from bot.app import Paperbot
    from bot.library import triage
    from bot.search.retrieve import Retriever
    from bot.settings import Settings
    from bot.store.corpus import Corpus
    from bot.store.fingerprint import index_fingerprint
    from bot.store.lexical import LexicalIndex
    from bot.store.registry import Registry
    from bot.store.vectors import VectorCache

    out["libraries"] = _rss_mb()
    settings = Settings(store=store)
    bot = Paperbot(settings)
    count = bot.store.vectors.count()
    out["chroma"] = _rss_mb()
    registry = Registry(store)
    version = registry.version()
    papers = registry.papers()
    registry.close()
    out["registry"] = _rss_mb()
    lexical = LexicalIndex.load(bot.store.paths.lexical, version, settings.lexical)
    if lexical is None:
        raise SystemExit(f"{store}: no saved BM25 index for version {version}; run a search once to write it")
    out["bm25"] = _rss_mb()
    fingerprint = index_fingerprint(settings.embed, settings.chunk)
    chunks = VectorCache(store, f"{version}-{count}-{fingerprint[:12]}").load(count)
    if chunks is None:
        raise SystemExit(f"{store}: no vector cache for this store version; run a search once to write it")
    out["vectors"] = _rss_mb()
    corpus = Corpus.build(version, papers, lexical, chunks)
    del chunks  # the corpus keeps its own copy, sorted by paper
    out["corpus"] = _rss_mb()
    bot.embed(["warm up"])
    out["model"] = _rss_mb()
    Retriever(corpus, bot.embed, settings.retrieval).search(query, 10)
    out["search"] = _rss_mb()
    triage.triage(corpus, topic, bot.embed, bot.chunk_texts, settings.triage)
    out["triage"] = _rss_mb()
    out["peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--query", default="Which papers use GRPO?")
    parser.add_argument("--topic", default="graph neural networks")
    parser.add_argument("--runs", type=int, default=3, help="fresh processes; the median of each step is printed")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.store, args.query, args.topic)))
        return
    runs = []
    for _ in range(args.runs):
        command = [sys.executable, __file__, "--child", "--store", str(args.store)]
        command += ["--query", args.query, "--topic", args.topic]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"{args.store}: resident memory in MB, median of {len(runs)} fresh processes")
    print(f"{'step':<10} {'RSS':>7} {'added':>7}")
    before = 0.0
    for step in (*STEPS, "peak"):
        value = sorted(run[step] for run in runs)[len(runs) // 2]
        added = "" if step in ("start", "peak") else f"{value - before:+7.0f}"
        print(f"{step:<10} {value:7.0f} {added:>7}")
        before = value


if __name__ == "__main__":
    main()
