"""The memory benchmark's small version: every step measured on the seeds, in a fresh process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).with_name("bench_memory.py")
STEPS = ("start", "libraries", "chroma", "registry", "bm25", "vectors", "corpus", "model", "search", "triage")


@pytest.mark.slow
def test_memory_bench_measures_every_step_on_the_seeds(seeded_bot) -> None:
    seeded_bot.search("GRPO")  # writes the BM25 index and the vector cache the bench reads
    store = seeded_bot.settings.store
    run = subprocess.run(
        [sys.executable, str(BENCH), "--child", "--store", str(store), "--topic", "reinforcement learning"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    sizes = json.loads(run.stdout.strip().splitlines()[-1])
    assert set(sizes) == {*STEPS, "peak"}
    assert sizes["libraries"] > sizes["start"] + 100  # torch and friends are in
    assert max(sizes[step] for step in STEPS) <= sizes["peak"] + 1
