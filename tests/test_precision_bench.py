"""benchmarks/precision.py on three abstracts: float32 and bfloat16 each timed, and the choice a new store
would get here consistent with how `paperbot ingest` decides (bot.embedder.Embedder.faster_precision)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "precision.py"


@pytest.mark.slow
def test_precision_benchmark_times_both_and_names_the_choice(tmp_path: Path) -> None:
    sentence = "We study how sparse attention scales with context length in long-document transformers. "
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"title": f"P{i}", "abstract": sentence * (5 + i)}) + "\n" for i in range(3)))
    command = [sys.executable, str(SCRIPT), "--corpus", str(corpus), "--papers", "3", "--runs", "2"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=REPO, check=True).stdout
    runs = re.findall(r"run (\d): (float32|bfloat16) ([0-9.]+) abstracts/s", out)
    assert [(n, p) for n, p, _ in runs] == [("1", "float32"), ("1", "bfloat16"), ("2", "float32"), ("2", "bfloat16")]
    assert all(float(rate) > 0 for *_, rate in runs)
    assert "3 abstracts, " in out and re.search(r"bfloat16 / float32 [0-9.]+x", out)
    flag = re.search(r"native bfloat16 flag: (True|False)", out)
    choice = re.search(r"a new store here is built in (float32|bfloat16)", out)
    assert flag and choice
    if flag.group(1) == "False":
        assert choice.group(1) == "float32"  # nothing to time without native bfloat16


def test_precision_benchmark_names_a_bad_corpus(tmp_path: Path) -> None:
    corpus = tmp_path / "bad.jsonl"
    corpus.write_text('{"abstract": "One sentence here."}\n{not json\n')
    bad = subprocess.run(
        [sys.executable, str(SCRIPT), "--corpus", str(corpus)], capture_output=True, text=True, timeout=300
    )
    assert bad.returncode == 2 and f"{corpus}:2: not JSON" in bad.stderr and "Traceback" not in bad.stderr
