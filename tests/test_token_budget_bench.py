"""benchmarks/token_budget.py on three abstracts: a row per chunk setting, counts that can be checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_token_budget_counts_fewer_word_pieces_without_overlap(tmp_path: Path) -> None:
    sentence = "We study how sparse attention scales with context length in long-document transformers. "
    records = [{"title": f"Paper {i}", "abstract": sentence * (6 + i)} for i in range(3)]
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in records))
    script = REPO / "benchmarks" / "token_budget.py"
    command = [sys.executable, str(script), "--corpus", str(corpus), "--papers", "3", "--settings", "60:1", "60:0"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=REPO, check=True).stdout
    rows = [line.split("|")[1:-1] for line in out.splitlines() if line.startswith("| 60 |")]
    assert [r[1].strip() for r in rows] == ["1", "0"]
    with_overlap, without = (float(r[3]) for r in rows)
    assert without < with_overlap  # the shared sentence is embedded twice
    assert float(rows[1][4].strip().rstrip("x")) >= 1.0  # the title leads every chunk
    bad = subprocess.run([*command[:-2], "sixty"], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert bad.returncode == 2 and "MAX_TOKENS:OVERLAP" in bad.stderr


def test_token_budget_names_the_line_of_a_bad_record(tmp_path: Path) -> None:
    corpus = tmp_path / "bad.jsonl"
    corpus.write_text('{"abstract": "One sentence here."}\n{not json\n')
    script = REPO / "benchmarks" / "token_budget.py"
    bad = subprocess.run(
        [sys.executable, str(script), "--corpus", str(corpus)], capture_output=True, text=True, timeout=300, cwd=REPO
    )
    assert bad.returncode == 2 and f"{corpus}:2: not JSON" in bad.stderr and "Traceback" not in bad.stderr
