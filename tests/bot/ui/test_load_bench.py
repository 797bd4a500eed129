"""The load benchmark's small version: 3 users for 5 s against a real `serve` on the seeds.

It checks the benchmark measures (answers counted, percentiles ordered, no errors), not how fast
the server is: speed targets live in benchmarks/load.py's printed numbers (docs/reliability.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
BENCH = REPO / "benchmarks" / "load.py"


def test_percentile_is_nearest_rank() -> None:
    sys.path.insert(0, str(BENCH.parent))
    try:
        import load
    finally:
        sys.path.remove(str(BENCH.parent))
    assert load.percentile([4.0, 1.0, 3.0, 2.0], 0.5) == 2.0
    assert load.percentile([float(n) for n in range(1, 41)], 0.95) == 38.0
    assert load.percentile([7.0], 0.95) == 7.0
    deck, again = load.Deck(["What is X?", "Why Y?"]), load.Deck(["What is X?", "Why Y?"])
    dealt = [deck.deal() for _ in range(2 * 2 * len(load.Deck.ENDINGS))]  # questions x cases x endings
    assert len(set(dealt)) == len(dealt)  # no text twice, so no question's vector is cached
    assert dealt == [again.deal() for _ in dealt]  # the same shuffle every run
    assert deck.deal() == dealt[0]  # then it starts over rather than stop a user


@pytest.mark.slow
def test_three_users_for_five_seconds_are_measured(seeded_store: Any) -> None:
    command = [sys.executable, str(BENCH), "--store", str(seeded_store.store), "--users", "3", "--seconds", "5"]
    run = subprocess.run(
        [*command, "--think", "0.2", "0.5", "--alone", "2", "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    alone, three = (json.loads(line) for line in run.stdout.splitlines())
    assert alone["users"] == 1 and alone["alone_s"] > 0
    assert three["users"] == 3 and three["errors"] == 0 and three["error_kinds"] == {}
    assert three["answers"] >= 3  # each user got at least one answer
    assert 0 < three["p50_s"] <= three["p95_s"] <= three["max_s"]
    # "seconds" is rounded to 0.1 s, so the rate computed from it may differ by that rounding
    assert three["throughput_per_s"] == pytest.approx(three["answers"] / three["seconds"], rel=0.02)
    assert three["server_cpu_percent"] > 0
