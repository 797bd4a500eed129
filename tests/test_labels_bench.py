"""benchmarks/labels.py on a few abstracts: a time, a rate and a digest that follows the labels."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "labels.py"


def _run(corpus: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), "--corpus", str(corpus), "--runs", "1"]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=REPO)


def test_the_labels_benchmark_times_assign_and_its_digest_follows_the_labels(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"abstract": "We propose FooNet, a net. FooNet wins."}) + "\n")
    first = json.loads(_run(corpus).stdout)
    assert first["papers"] == 1 and first["median_s"] >= 0 and len(first["labels_digest"]) == 16
    corpus.write_text(json.dumps({"abstract": "We propose BarNet, a net. BarNet wins."}) + "\n")
    assert json.loads(_run(corpus).stdout)["labels_digest"] != first["labels_digest"]


def test_the_labels_benchmark_names_the_line_of_a_bad_record(tmp_path: Path) -> None:
    corpus = tmp_path / "bad.jsonl"
    corpus.write_text('{"abstract": "One sentence here."}\n{not json\n')
    bad = _run(corpus)
    assert bad.returncode == 2 and f"{corpus}:2: not JSON" in bad.stderr and "Traceback" not in bad.stderr
    missing = _run(tmp_path / "none.jsonl")
    assert missing.returncode == 2 and "cannot read" in missing.stderr and "Traceback" not in missing.stderr
