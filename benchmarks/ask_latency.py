"""Warm extractive ask latency on a store you already have: the ask rows of benchmarks/speed.py alone.

Not a test (pytest does not collect it): a benchmark that prints measured numbers. One process
opens the store, asks the last question once to warm up (the model's weights, the store's caches),
then asks every question of benchmarks/speed.py (tests/data/heldout.jsonl and questions.jsonl, each
once) in order, timing each `Paperbot.ask(q, "extractive")`; --runs repeats that in new processes
and reports each run's p50 and p95 and their medians. Two versions of the code are compared by
running this from each checkout on the same store, one after the other (docs/performance.md).

Run: .venv/bin/python benchmarks/ask_latency.py --store /tmp/speed-work/large-8647/store-...
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from latency import percentile
from speed import questions, settings_for


def one_run(store: Path, limit: int | None) -> dict[str, float | int]:
    """p50 and p95 in ms of one warm pass over the questions in this process."""
    from bot.app import Paperbot

    asked = questions(limit)
    app = Paperbot(settings_for(store))
    app.ask(asked[-1], generator="extractive")
    seconds, answered = [], 0
    for question in asked[:-1]:
        started = time.perf_counter()
        answer = app.ask(question, generator="extractive")
        seconds.append(time.perf_counter() - started)
        answered += not answer.abstained
    app.store.close()
    ms = [s * 1000 for s in seconds]
    return {"asks": len(ms), "answered": answered, "p50_ms": round(percentile(ms, 0.5), 1),
            "p95_ms": round(percentile(ms, 0.95), 1)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True, help="a paperbot store (folder) to ask")
    parser.add_argument("--runs", type=int, default=3, help="passes, each in a new process (default 3)")
    parser.add_argument("--queries", type=int, default=None, help="use only the first N questions")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a single pass, in this process
    args = parser.parse_args()
    if not (args.store / "papers.sqlite").is_file():
        parser.exit(2, f"{args.store} holds no paperbot store; give one built by `paperbot ingest` with --store\n")
    if args.one:
        print(json.dumps(one_run(args.store, args.queries)))
        return
    runs = []
    for _ in range(max(1, args.runs)):
        command = [sys.executable, __file__, "--store", str(args.store), "--one"]
        command += ["--queries", str(args.queries)] if args.queries else []
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            parser.exit(2, f"a run failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ''}\n")
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    out = {
        "store": str(args.store),
        "runs": runs,
        "p50_ms_median": statistics.median(r["p50_ms"] for r in runs),
        "p95_ms_median": statistics.median(r["p95_ms"] for r in runs),
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
