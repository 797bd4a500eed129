"""benchmarks/scale.py at a small size: it builds a store through the product's own ingest, reads it
back in a fresh process and through the CLI, and reports sane numbers (issue 17).

Uses the shared corpora (../shared/corpora) and the sentence-vector cache under
~/.cache/paperbot-bench (the first run ever embeds 2,000 sentences, about 30 s more).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORPORA = REPO.parent.parent / "shared" / "corpora"
if not (CORPORA / "ml_conf_abstracts.jsonl").is_file():
    CORPORA = REPO.parent / "shared" / "corpora"
PAPERS, QUERIES, ADD = 2000, 5, 20


@pytest.mark.slow
@pytest.mark.parametrize("server", [False, True], ids=["embedded", "chroma-run-server"])
def test_small_scale_run_reports_every_measure(tmp_path: Path, server: bool) -> None:
    if not (CORPORA / "ml_conf_abstracts.jsonl").is_file() or not (CORPORA / "scifact" / "corpus.jsonl").is_file():
        pytest.skip(f"the shared corpora are not at {CORPORA} (../shared/corpora); the scale benchmark needs them")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}
    small = [
        "--sizes",
        str(PAPERS),
        "--sentences",
        "2000",
        "--model-sample",
        "20",
        "--cold-runs",
        "1",
        "--add",
        str(ADD),
    ]
    where = ["--corpora", str(CORPORA), "--workdir", str(tmp_path / "work"), "--json"]
    # On the server, search goes through Chroma's index, which 2,000 papers would not choose.
    mode = ["--server", "--dense-index", "approximate"] if server else ["--keep"]

    def bench(*extra: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, str(REPO / "benchmarks" / "scale.py"), *small, *where, *extra]
        return subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)

    run = bench("--queries", str(QUERIES), *mode)
    lines = [line for line in run.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, run.stdout
    row = json.loads(lines[0])

    assert row["papers"] == row["ingested"] == row["papers_in_store"] == PAPERS
    # With --server the reader is a second client whose folder started empty: it found every paper.
    assert row["where"] == ("chroma run server" if server else "embedded")
    assert row["dense_path"] == ("approximate" if server else "exact")
    assert row["chunks"] >= PAPERS
    assert row["sentences"] == 2000
    assert row["fallback_sentences"] == 0  # every chunk's vector came from the sentence table
    assert row["ingest_papers_per_s"] > 0 and row["ingest_s"] > 0
    assert row["queries"] == QUERIES
    assert 0 < row["search_p50_ms"] <= row["search_p95_ms"]
    assert 0 < row["ask_p50_ms"] <= row["ask_p95_ms"]
    assert 0 < row["reader_rss_search_mb"] <= row["reader_rss_peak_mb"] < 16_000
    assert 0 < row["cold_search_s"] < 120
    assert row["disk_mb"] > 0
    assert row["model_papers_per_s"] > 0
    assert row["real_embed_hours"] == pytest.approx(PAPERS / row["model_papers_per_s"] / 3600, rel=0.05, abs=0.01)
    misses = row["approximate_misses"]
    # A server's store is searched through the chunks' index; an embedded one through the papers'.
    tried = [(m["index"], m.get("approximate_chunks", m.get("approximate_papers"))) for m in misses]
    by_paper = [] if server else [("papers", 1000), ("papers", 3000), ("papers", 10000)]
    by_chunk = [("chunks", n) for n in ([100, 300, 1000, 2000] if server else [2000])]
    assert tried == by_paper + by_chunk
    assert all(m["of"] == 2 * QUERIES * 10 and 0 <= m["missed"] <= m["of"] for m in misses)
    assert all(0 < m["search_p50_ms"] < 60_000 for m in misses)
    assert misses[-1]["rate"] <= 0.05  # 2,000 chunks of 2,000 papers' ~4,800: nearly the exact top 10
    if not server:
        assert misses[1]["rate"] <= 0.01  # 3,000 of 2,000 papers: every paper scored exactly
    # The first process to read after the ingest reads every vector from Chroma and leaves the cache.
    assert 0 < row["first_read_s"] < 120 and 0 < row["first_read_rss_mb"] < 16_000
    kept = tmp_path / "work" / f"papers-{PAPERS}"
    if server:
        assert not kept.exists()  # removed without --keep
        assert "add_s" not in row  # papers are added to an embedded store only
        return
    # Papers added, then all but one pruned: each ingest left the new version's vector cache.
    assert (row["add_papers"], row["prune_papers"]) == (ADD, ADD - 1)
    assert row["add_cache_kept"] and row["prune_cache_kept"]
    assert row["add_s"] > 0 and row["prune_s"] > 0 and 0 < row["add_cold_search_s"] < 120
    assert 0 < row["add_cache_s"] < row["add_s"] and 0 < row["prune_bm25_s"] < row["prune_s"]
    assert (kept / "store").is_dir() and (kept / "corpus.jsonl").is_file()
    again = bench("--queries", "2", "--reuse")
    assert again.returncode == 0, again.stderr[-3000:]
    reread = json.loads(again.stdout.splitlines()[-1])
    assert "ingested" not in reread and reread["papers_in_store"] == PAPERS + 1  # read, not built again
    assert reread["first_read_s"] > 0 and reread["queries"] == 2
    assert "reusing the store of 2,001 papers" in again.stderr
    assert reread["add_papers"] == ADD - 1  # the one kept last time is found stored
