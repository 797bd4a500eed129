"""benchmarks/sentence_means.py on a three-paper BEIR folder: `paperbot eval` builds the store, and the
benchmark ranks with each kind of chunk vector and prints a number for each."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

DOCS = {
    "d1": ("Sparse attention", "We study sparse attention for long documents. It scales linearly in length."),
    "d2": ("Protein folding", "We predict protein structures from sequences. The model beats earlier folding methods."),
    "d3": ("Robot grasping", "We learn robot grasps from a few demonstrations. Grasps transfer to new objects."),
}


@pytest.mark.slow
def test_sentence_means_ranks_a_small_beir_store(tmp_path: Path) -> None:
    beir = tmp_path / "tiny"
    (beir / "qrels").mkdir(parents=True)
    (beir / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, (t, x) in DOCS.items())
    )
    queries = {"q1": "attention over long documents", "q2": "folding proteins from their sequence"}
    (beir / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in queries.items()))
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n")
    store = tmp_path / "store"
    paperbot = [sys.executable, "-m", "bot", "--store", str(store)]
    subprocess.run([*paperbot, "eval", str(beir), "--split", "test", "--json"], check=True, capture_output=True)
    built = next(p for p in store.iterdir() if (p / "papers.sqlite").is_file())
    script = [sys.executable, str(REPO / "benchmarks" / "sentence_means.py"), "--store", str(built)]
    out = subprocess.run(
        [*script, "--beir", str(beir), "--split", "test"], capture_output=True, text=True, timeout=600, check=True
    ).stdout
    assert "3 papers, 2 queries; " in out
    rows = dict(re.findall(r"^\| ([^|]+?) \| ([0-9.]+) \|$", out, flags=re.MULTILINE))
    assert set(rows) == {
        "the chunk vectors ingest stored",
        "mean of the chunk's sentences and its title",
        "mean of the chunk's sentences",
        "the paper's best single sentence",
    }
    assert all(0 <= float(v) <= 1 for v in rows.values())
    assert float(rows["the chunk vectors ingest stored"]) == 1.0  # two easy queries, each paper first
    missing = subprocess.run([*script, "--beir", str(beir)], capture_output=True, text=True, timeout=300)
    assert missing.returncode == 2 and "no qrels/train.tsv" in missing.stderr and "Traceback" not in missing.stderr
    empty = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "sentence_means.py"), "--store", str(tmp_path), "--beir", str(beir)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert empty.returncode == 2 and "holds no paperbot store" in empty.stderr
