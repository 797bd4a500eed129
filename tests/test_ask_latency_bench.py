"""benchmarks/ask_latency.py on the seeded store: a few questions, one run, numbers that add up."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bot.settings import Settings

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "ask_latency.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600, cwd=REPO)


def test_the_ask_latency_benchmark_times_every_question_but_the_warm_up(seeded_store: Settings) -> None:
    done = _run("--store", str(seeded_store.store), "--runs", "1", "--queries", "4")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    (run,) = out["runs"]
    assert run["asks"] == 3 and 0 <= run["answered"] <= 3
    assert 0 < run["p50_ms"] <= run["p95_ms"] and out["p50_ms_median"] == run["p50_ms"]


def test_the_ask_latency_benchmark_says_what_to_give_for_a_folder_without_a_store(tmp_path: Path) -> None:
    done = _run("--store", str(tmp_path))
    assert done.returncode == 2 and "holds no paperbot store" in done.stderr and "Traceback" not in done.stderr
