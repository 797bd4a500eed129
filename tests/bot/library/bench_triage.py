"""Time `paperbot triage` on a store: cold (a new process each run) and warm (later calls in one process).

Not a test (pytest does not collect it): a benchmark that prints measured numbers, for docs/triage.md.
Run: .venv/bin/python tests/bot/library/bench_triage.py --store /tmp/evalstores/mlconf "graph neural networks"
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bot.app import Paperbot
from bot.settings import Settings
from bot.store.paths import StorePaths

OTHER_TOPICS = ["safe reinforcement learning", "diffusion models", "federated learning"]


def cold(store: Path, topic: str, runs: int, uncached: bool) -> dict[str, list[float]]:
    """Wall seconds of `paperbot --store STORE triage TOPIC --json`, each in a new process; with
    `uncached`, runs without the vector cache (its file deleted first) alternate with runs using it."""
    command = [str(Path(sys.executable).with_name("paperbot")), "--store", str(store), "triage", topic, "--json"]
    out: dict[str, list[float]] = {"cold, vectors from the cache": [], "cold, vectors from Chroma": []}
    for _ in range(runs):
        for label in list(out)[: 2 if uncached else 1][::-1]:
            if label.endswith("Chroma"):
                for cached in StorePaths(store).vector_caches():  # the next run reads Chroma and writes it anew
                    cached.unlink()
            started = time.perf_counter()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            out[label].append(time.perf_counter() - started)
    return {k: v for k, v in out.items() if v}


def warm(store: Path, topic: str, runs: int) -> dict[str, list[float]]:
    """Seconds of each triage call in one process: the first, the same topic again, then other topics."""
    bot = Paperbot(Settings(store=store))
    out: dict[str, list[float]] = {"first call": [], "same topic again": [], "another topic": []}
    for label, topics in (("first call", [topic]), ("same topic again", [topic] * runs)):
        for t in topics:
            started = time.perf_counter()
            bot.triage(t)
            out[label].append(time.perf_counter() - started)
    for t in OTHER_TOPICS[:runs]:
        started = time.perf_counter()
        result = bot.triage(t)
        out["another topic"].append(time.perf_counter() - started)
        print(f"  {t}: {len(result.papers)} papers, {len(result.themes)} themes", file=sys.stderr)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("topic")
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--uncached", action="store_true", help="also time cold runs reading Chroma")
    args = parser.parse_args()
    rows = cold(args.store, args.topic, args.runs, args.uncached)
    rows.update({f"warm: {k}": v for k, v in warm(args.store, args.topic, args.runs).items()})
    for label, seconds in rows.items():
        runs = ", ".join(f"{s:.2f}" for s in seconds)
        print(f"{label:32} median {statistics.median(seconds):6.2f} s   runs: {runs}")


if __name__ == "__main__":
    main()
