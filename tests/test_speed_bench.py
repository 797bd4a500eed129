"""benchmarks/speed.py at a small size (issue 18): the raw model, the LangChain tutorial pipeline and
paperbot ingest the same abstracts, are searched, and paperbot's large-store path (warm ask, one
`paperbot ask` process's RSS) runs; the JSON has every field with sane values, and the table renders.

Uses the shared ML-conference abstracts (../shared/corpora) when they are there, else abstracts cut
from the bundled seeds/. Needs the bench extra (`bash .ci/setup --test` installs it).
"""

from __future__ import annotations

import importlib.util
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
PAPERS, LARGE, QUERIES = 30, 50, 20


def corpus(folder: Path) -> Path:
    """The shared abstracts, or a JSONL of the seeds' abstracts (one a paragraph) when they are missing."""
    shared = CORPORA / "ml_conf_abstracts.jsonl"
    if shared.is_file():
        return shared
    paragraphs = [p.strip() for f in sorted((REPO / "seeds").glob("*.txt")) for p in f.read_text().split("\n\n")]
    abstracts = [" ".join(p.split()) for p in paragraphs if len(p) > 200]
    assert len(abstracts) >= LARGE, f"the seeds hold {len(abstracts)} abstracts, fewer than {LARGE}"
    path = folder / "seeds.jsonl"
    path.write_text("".join(json.dumps({"id": f"seed-{i}", "abstract": a}) + "\n" for i, a in enumerate(abstracts)))
    return path


def speed_module() -> object:
    sys.path.insert(0, str(REPO / "benchmarks"))  # speed.py imports latency.py from beside itself
    try:
        spec = importlib.util.spec_from_file_location("speed_bench", REPO / "benchmarks" / "speed.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(REPO / "benchmarks"))


@pytest.mark.slow
def test_small_speed_run_reports_every_measure(tmp_path: Path) -> None:
    for name in ("langchain_text_splitters", "langchain_chroma", "langchain_huggingface"):
        if importlib.util.find_spec(name) is None:
            pytest.fail(f"{name} is missing: the bench extra is not installed; run `bash .ci/setup --test`")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}
    work = tmp_path / "work"
    run = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "speed.py"),
            *("--corpus", str(corpus(tmp_path)), "--papers", str(PAPERS), "--large", str(LARGE)),
            *("--queries", str(QUERIES), "--runs", "1", "--cold-runs", "1", "--workdir", str(work), "--json"),
            "--sentences",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    lines = [line for line in run.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, run.stdout
    result = json.loads(lines[0])

    assert (result["papers"], result["questions"], result["runs"], result["cold_runs"]) == (PAPERS, QUERIES, 1, 1)
    raw, tutorial, paperbot, large = result["raw"], result["tutorial"], result["paperbot"], result["large"]
    for side in (raw, tutorial, paperbot):
        assert side["ingest_per_s"] > 0 and len(side["ingest_s"]) == 1
        assert side["ingest_per_s"] == pytest.approx(PAPERS / side["ingest_s"][0], rel=0.01)
        assert 10 < side["word_pieces_per_abstract"] < 2000
    assert tutorial["chunks"] >= PAPERS and paperbot["chunks"] >= PAPERS
    assert paperbot["precision"] in ("float32", "bfloat16")
    assert 0 < paperbot["embed_share"] < 1  # the model is part of ingest, not all of it
    for search in (tutorial["search"], paperbot["search"]):
        assert 0 < search["p50_ms"] <= search["p95_ms"] < 60_000
    assert tutorial["search"]["with_hits"] == QUERIES - 1  # k=4 nearest chunks, every timed question
    assert paperbot["search"]["with_hits"] >= 1
    assert 0 < paperbot["cold_search_s"] < 120 and 0 < paperbot["help_s"] < 60

    # Records with the same text are one paper (two of the seeds' 50 first abstracts are).
    assert 0.9 * LARGE <= large["papers"] <= LARGE <= large["chunks"] and large["reused"] is False
    assert 0 < large["search"]["p50_ms"] <= large["search"]["p95_ms"]
    assert 0 < large["ask"]["p50_ms"] <= large["ask"]["p95_ms"]
    assert 0 < large["ask"]["answered"] <= QUERIES - 1
    assert 100 < large["ask_process_rss_mb"] < 16_000 and large["ask_process_s"] > 0
    assert result["users"] is None
    # then its sentences kept: every one embedded once, the same questions answered, without embedding them
    kept = result["kept"]
    assert kept["sentences"]["sentences"] == kept["sentences"]["embedded"] > large["papers"]
    assert 0 < kept["ask"]["p50_ms"] <= kept["ask"]["p95_ms"] and kept["ask"]["answered"] == large["ask"]["answered"]
    assert kept["users"] is None
    assert not list(work.glob("large-*"))  # built in --workdir without --keep: removed

    ratios = result["ratios"]
    assert ratios["paperbot_ingest_per_raw_model"] == pytest.approx(
        paperbot["ingest_per_s"] / raw["ingest_per_s"], rel=0.01
    )
    assert ratios["search_p50_tutorial_per_paperbot"] > 0
    assert result["load_start"] >= 0 and result["load_end"] >= 0 and result["seconds"] > 0
    targets = {t["target"]: t for t in result["targets"]}
    assert len(targets) == 13
    users = {name for name in targets if name.startswith("20 users")}
    assert users == {"20 users answer p95", "20 users answer p95, after 10 s", "20 users answer p95, sentences kept"}
    assert all(targets[name]["met"] is None for name in users)  # --users 0: not measured
    assert all(isinstance(t["met"], bool) for name, t in targets.items() if name not in users)
    assert targets["cold search"]["met"] is (paperbot["cold_search_s"] <= 2.0)

    table = speed_module().table(result)  # type: ignore[attr-defined]
    assert "| ingest, abstracts/s | **" in table
    assert f"({tutorial['chunks']:,} chunks)" in table
    assert f"search p50 / p95, {large['papers']} papers, warm |" in table
    assert "not run: chat users (--users 0)" in table
    assert f"the abstracts' {kept['sentences']['sentences']:,} sentences kept (`ingest --sentences`" in table


def test_targets_of_a_run_without_the_large_store_are_not_measured() -> None:
    """`--large 0 --users 0` (the ingest rows alone) once failed as it reported: no large store, no sentences kept."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from speed_table import targets
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    result = {
        "large": None,
        "users": None,
        "kept": None,
        "paperbot": {"cold_search_s": 0.8, "help_s": 0.1},
        "ratios": {"paperbot_ingest_per_raw_model": 0.7},
    }
    rows = {t["target"]: t for t in targets(result)}
    assert rows["ingest / raw model"]["met"] is False and rows["ingest / raw model"]["off"] == pytest.approx(1.43)
    assert rows["cold search"]["met"] is True and rows["--help"]["met"] is True
    measured = {"ingest / raw model", "cold search", "--help"}
    assert all(t["met"] is None and t["value"] is None for name, t in rows.items() if name not in measured)
