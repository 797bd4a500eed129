"""`paperbot eval`: ranking metrics against hand-computed values and an oracle, the BEIR and
question-file readers, and both kinds of evaluation end to end through the CLI on tiny corpora."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bot.errors import FormatError, MissingPathError
from bot.eval.data import read_beir, read_judgments, read_questions
from bot.eval.metrics import hit_at_k, mrr_at_k, ndcg_at_k, recall_at_k, rrf
from bot.eval.report import EvalReport
from bot.settings import load_settings
from bot.store import Store
from bot.store.paths import StorePaths

# Seven invented abstracts on unrelated topics; each query below paraphrases one of them.
TINY_CORPUS = {
    "d1": (
        "Counting penguins from the air",
        "We count Adelie penguins in drone photographs of Antarctic "
        "colonies with a convolutional network, halving the error of manual counts.",
    ),
    "d2": (
        "Harbour tide forecasting",
        "We forecast coastal tide heights and storm surges from sparse harbour "
        "gauge records and transfer the forecasts to unseen harbours.",
    ),
    "d3": (
        "Restoring medieval manuscripts",
        "A language model restores damaged medieval manuscripts by "
        "predicting erased letters from ink traces on parchment.",
    ),
    "d4": (
        "Hive acoustics",
        "Microphones inside beehives reveal queen loss: a small recurrent model hears "
        "the colony's changed buzzing two days before beekeepers notice.",
    ),
    "d5": (
        "Volcanic ash plumes",
        "Satellite images track volcanic ash plumes, and a transport model "
        "forecasts where the ash will disrupt aviation.",
    ),
    "d6": (
        "Sourdough microbiology",
        "We sequence the yeasts and lactic acid bacteria of sourdough starters "
        "from bakeries on four continents and relate them to bread flavour.",
    ),
    "d7": (
        "Glacier melt from radar",
        "Ground-penetrating radar measures how fast alpine glaciers thin, separating surface melt from ice flow.",
    ),
}
TINY_QUERIES = {
    "q1": "counting penguin colonies in aerial drone images",
    "q2": "hearing from sound inside a beehive that the queen is gone",
    "q3": "which microbes live in sourdough bread starters",
    "q4": "predicting storm surge at harbours from tide gauges",
    "q9": "a query without relevance judgements is not evaluated",
}
# q4 has a graded second answer; the zero-score row must not count as relevant.
TINY_QRELS = [("q1", "d1", 1), ("q2", "d4", 1), ("q3", "d6", 1), ("q4", "d2", 2), ("q4", "d5", 1), ("q1", "d3", 0)]


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def beir_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "tinybeir"
    (folder / "qrels").mkdir(parents=True)
    _write_jsonl(folder / "corpus.jsonl", [{"_id": k, "title": t, "text": a} for k, (t, a) in TINY_CORPUS.items()])
    _write_jsonl(folder / "queries.jsonl", [{"_id": k, "text": t} for k, t in TINY_QUERIES.items()])
    lines = ["query-id\tcorpus-id\tscore", *(f"{q}\t{d}\t{s}" for q, d, s in TINY_QRELS)]
    (folder / "qrels" / "train.tsv").write_text("\n".join(lines) + "\n")
    return folder


# --- metrics -------------------------------------------------------------------------------


def test_ndcg_by_hand() -> None:
    # relevant at ranks 2 and 4: (1/log2(3) + 1/log2(5)) / (1 + 1/log2(3)) = 1.0616 / 1.6309 = 0.6509
    assert ndcg_at_k(["x", "a", "y", "b"], {"a": 1, "b": 1}, 10) == pytest.approx(0.6509, abs=1e-4)
    # graded, best answer second: (1 + 2/log2(3)) / (2 + 1/log2(3)) = 2.2619 / 2.6309 = 0.8597
    assert ndcg_at_k(["b", "a"], {"a": 2, "b": 1}, 10) == pytest.approx(0.8597, abs=1e-4)
    assert ndcg_at_k(["a", "b"], {"a": 2, "b": 1}, 10) == pytest.approx(1.0)
    assert ndcg_at_k(["x", "a"], {"a": 1}, 1) == 0.0  # the answer is cut off at k
    assert ndcg_at_k([], {"a": 1}, 10) == 0.0
    assert ndcg_at_k(["a"], {}, 10) == 0.0


def test_ndcg_matches_sklearn() -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(7)
    for _ in range(20):
        grades = rng.integers(0, 3, size=30)
        if not grades.any():
            continue
        scores = rng.permutation(30).astype(float)  # distinct scores: no tie averaging
        ranking = [f"d{i}" for i in np.argsort(-scores)]
        relevance = {f"d{i}": int(g) for i, g in enumerate(grades) if g > 0}
        for k in (1, 5, 10):
            expected = metrics.ndcg_score([grades], [scores], k=k)
            assert ndcg_at_k(ranking, relevance, k) == pytest.approx(expected, abs=1e-9)


def test_recall_mrr_hit_by_hand() -> None:
    relevant = {"a", "b", "c"}
    assert recall_at_k(["a", "x", "b"], relevant, 2) == pytest.approx(1 / 3)
    assert recall_at_k(["a", "x", "b"], relevant, 3) == pytest.approx(2 / 3)
    assert recall_at_k(["a"], set(), 10) == 0.0
    assert mrr_at_k(["x", "y", "a"], {"a"}, 10) == pytest.approx(1 / 3)
    assert mrr_at_k(["x", "y", "a"], {"a"}, 2) == 0.0
    assert mrr_at_k(["a", "b"], {"a", "b"}, 10) == 1.0
    assert hit_at_k(["x", "a"], {"a"}, 1) == 0.0
    assert hit_at_k(["x", "a"], {"a"}, 2) == 1.0


def test_rrf_by_hand() -> None:
    # b: 1/62 + 1/61 = 0.03252; a: 1/61 = 0.01639; c: 1/62 = 0.01613
    assert rrf([["a", "b"], ["b", "c"]]) == ["b", "a", "c"]
    # equal scores are ordered by id, so runs are reproducible
    assert rrf([["a", "b"], ["b", "a"]]) == ["a", "b"]
    assert rrf([["a"], ["b"]], k=1) == ["a", "b"]
    assert math.isclose(1 / 62 + 1 / 61, 0.032522, abs_tol=1e-6)


def test_report_renders_table_and_markdown() -> None:
    report = EvalReport(
        "tiny",
        ("hit@1", "answers supported"),
        {"paperbot": {"hit@1": 0.9, "answers supported": 1.0}, "bm25": {"hit@1": 0.85, "answers supported": None}},
        notes=("a note",),
    )
    table = report.table().splitlines()
    assert table[0] == "tiny"
    assert table[2].split() == ["system", "hit@1", "answers", "supported"]
    assert table[3].split() == ["paperbot", "(hybrid)", "0.900", "1.000"]
    assert table[4].split() == ["BM25", "alone", "0.850", "-"]
    assert len({len(line) for line in table[2:5]}) == 1  # columns line up
    markdown = report.markdown()
    assert "| system | hit@1 | answers supported |" in markdown
    assert "| BM25 alone | 0.850 | - |" in markdown and "- a note" in markdown


# --- readers -------------------------------------------------------------------------------


def test_read_beir(beir_folder: Path) -> None:
    split = read_beir(beir_folder, "train")
    assert list(split.queries) == ["q1", "q2", "q3", "q4"]  # q9 has no judgements
    assert split.qrels["q1"] == {"d1": 1}  # the zero score is dropped
    assert split.qrels["q4"] == {"d2": 2, "d5": 1}
    assert split.corpus == beir_folder / "corpus.jsonl"


def test_read_beir_errors_say_what_to_do(beir_folder: Path, tmp_path: Path) -> None:
    with pytest.raises(FormatError, match=r"no qrels/test.tsv \(splits here: train\); choose one with --split"):
        read_beir(beir_folder, "test")
    with pytest.raises(MissingPathError, match="no such folder"):
        read_beir(tmp_path / "nowhere", "train")
    (beir_folder / "qrels" / "train.tsv").write_text("query-id\tcorpus-id\tscore\nq7\td1\t1\n")
    with pytest.raises(FormatError, match=r"1 query ids are not in queries\.jsonl"):
        read_beir(beir_folder, "train")
    (beir_folder / "qrels" / "train.tsv").write_text("q1\td1\n")
    with pytest.raises(FormatError, match="line 1: expected `query-id<TAB>corpus-id<TAB>score`"):
        read_beir(beir_folder, "train")


def test_read_questions(tmp_path: Path) -> None:
    path = _write_jsonl(
        tmp_path / "q.jsonl", [{"id": "a", "question": "Why?", "kind": "multi", "expected": ["x", "y"]}]
    )
    (question,) = read_questions(path)
    assert (question.qid, question.kind, question.expected) == ("a", "multi", ("x", "y"))
    off = _write_jsonl(tmp_path / "off.jsonl", [{"id": "o", "question": "Brisket?"}])
    assert read_questions(off, offtopic=True)[0].kind == "offtopic"
    with pytest.raises(FormatError, match=r'off.jsonl line 1: needs "expected".*--offtopic'):
        read_questions(off)


def test_read_judgments(tmp_path: Path) -> None:
    path = _write_jsonl(
        tmp_path / "j.jsonl",
        [
            {"question": "q1", "id": "a", "relevant": True, "title": "A", "reason": "on topic"},
            {"question": "q1", "id": "b", "relevant": False},
            {"question": "q2", "id": "a", "relevant": False},
            {"question": "q1", "id": "a", "relevant": True},  # a repeat that agrees is harmless
        ],
    )
    assert read_judgments(path) == {"q1": {"a": True, "b": False}, "q2": {"a": False}}
    bad = {
        'line 1: needs "question"': {"id": "a", "relevant": True},
        'line 1: needs .*"id"': {"question": "q1", "id": 7, "relevant": True},
        'line 1: "relevant" must be true or false': {"question": "q1", "id": "a", "relevant": "yes"},
    }
    for message, row in bad.items():
        with pytest.raises(FormatError, match=message):
            read_judgments(_write_jsonl(tmp_path / "bad.jsonl", [row]))
    both = [{"question": "q", "id": "a", "relevant": True}, {"question": "q", "id": "a", "relevant": False}]
    with pytest.raises(FormatError, match="line 2: question q judges paper a both ways"):
        read_judgments(_write_jsonl(tmp_path / "both.jsonl", both))


def test_the_shipped_judgments_belong_to_the_shipped_questions() -> None:
    data = Path(__file__).resolve().parents[2] / "data"
    judged = read_judgments(data / "judged_distractors.jsonl")
    questions = {q.qid for name in ("questions", "heldout") for q in read_questions(data / f"{name}.jsonl")}
    assert set(judged) <= questions, sorted(set(judged) - questions)
    rows = [json.loads(line) for line in (data / "judged_distractors.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all(row["title"] and row["reason"] for row in rows)
    assert len({(row["question"], row["id"]) for row in rows}) == len(rows)  # one judgment per pair


# --- end to end through the CLI --------------------------------------------------------------


@pytest.mark.slow
def test_beir_eval_end_to_end(
    beir_folder: Path, tmp_path: Path, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, report = tmp_path / "store", tmp_path / "report.md"
    run = run_cli("eval", beir_folder, "--store", store, "--json", "--report", report)
    assert run.code == 0, run.err
    out = run.json()
    assert out["queries"] == 4 and out["papers"] == 7 and out["ingest"]["added"] == 7
    assert set(out["metrics"]) == {"paperbot", "bm25", "dense", "rrf"}
    for metrics in out["metrics"].values():
        assert set(metrics) == {"nDCG@10", "Recall@100", "MRR@10"}
        assert all(0.0 <= v <= 1.0 for v in metrics.values())
    # 100 deep covers the whole corpus, except for BM25, which leaves out papers sharing no word
    assert [out["metrics"][name]["Recall@100"] for name in ("paperbot", "dense", "rrf")] == [1.0, 1.0, 1.0]
    assert out["metrics"]["paperbot"]["nDCG@10"] >= 0.9
    assert out["metrics"]["paperbot"]["MRR@10"] == 1.0
    assert StorePaths(store / "eval-tinybeir").registry.is_file()
    assert report.read_text().startswith("### tinybeir train: 4 queries, 7 papers")
    assert "| paperbot (hybrid) |" in report.read_text()

    again = run_cli("eval", beir_folder, "--store", store, "--limit", "2")  # the table for people
    assert again.code == 0, again.err
    assert again.out.startswith("tinybeir train: 2 queries, 7 papers")
    assert "RRF of BM25 + dense (k=60)" in again.out
    assert "0 papers added, 7 unchanged" in again.out  # the store is reused, nothing embedded again

    monkeypatch.setenv("PAPERBOT_CHUNK__MAX_TOKENS", "100")  # a store built otherwise is not reused silently
    stale = run_cli("eval", beir_folder, "--store", store)
    assert stale.code == 3 and f"delete it (rm -r {store / 'eval-tinybeir'})" in stale.err


@pytest.mark.slow
def test_question_eval_on_a_tiny_store(
    tmp_path: Path,
    small_abstracts: dict[str, str],
    write_abstracts: Callable[..., Path],
    run_cli: Callable[..., Any],
) -> None:
    store = tmp_path / "store"
    assert (
        run_cli(
            "ingest", write_abstracts(tmp_path / "small.txt", list(small_abstracts.values())), "--store", store
        ).code
        == 0
    )
    questions = _write_jsonl(
        tmp_path / "questions.jsonl",
        [
            {
                "id": "p",
                "question": "How can seabird colonies be censused from aerial photos?",
                "kind": "single",
                "expected": ["counts penguins in drone images"],
            },
            {
                "id": "b",
                "question": "Can acoustics tell a beekeeper that the queen has died?",
                "kind": "single",
                "expected": ["detects queen loss from hive acoustics"],
            },
            {
                "id": "m",
                "question": "Which papers monitor animals with sensors or drones?",
                "kind": "multi",
                "expected": ["counts penguins in drone images", "record hive temperature and sound"],
            },
        ],
    )
    offtopic = _write_jsonl(tmp_path / "off.jsonl", [{"id": "o", "question": "Which football club won most titles?"}])
    run = run_cli("eval", questions, "--offtopic", offtopic, "--answers", "--json", "--store", store)
    assert run.code == 0, run.err
    out = run.json()
    assert (out["questions"], out["offtopic"], out["papers"]) == (3, 1, 4)
    ours = out["metrics"]["paperbot"]
    assert ours["hit@1"] == ours["single hit@1"] == 1.0 and ours["MRR@10"] == 1.0 and ours["multi recall@10"] == 1.0
    assert ours["abstention acc"] == 1.0
    assert out["errors"]["paperbot"] == {"missed_hit@1": [], "wrong_abstention": []}
    assert ours["answers supported"] == 1.0 and out["answers"]["sentences"] > 0
    assert out["metrics"]["bm25"]["answers supported"] is None
    for metrics in out["metrics"].values():
        assert all(v is None or 0.0 <= v <= 1.0 for v in metrics.values())
    assert out["latency_ms"]["median"] > 0


@pytest.mark.slow
def test_judged_hit_credits_judged_papers_and_lists_unjudged_ones(
    tmp_path: Path, small_abstracts: dict[str, str], run_cli: Callable[..., Any]
) -> None:
    ids = dict(zip(small_abstracts, ["pen", "tide", "quill", "bee"], strict=True))
    rows = [{"id": ids[label], "title": label, "abstract": text} for label, text in small_abstracts.items()]
    corpus = _write_jsonl(tmp_path / "corpus.jsonl", rows)
    store = tmp_path / "store"
    assert run_cli("ingest", corpus, "--store", store).code == 0
    questions = _write_jsonl(
        tmp_path / "questions.jsonl",
        [
            # labelled with the bee paper only; the penguin paper comes first and is judged relevant
            {
                "id": "m",
                "question": "Which papers count penguins in drone images?",
                "kind": "multi",
                "expected": ["record hive temperature and sound"],
            },
            # deliberately mislabelled: the tide paper comes first and nobody judged it
            {"id": "t", "question": "How can coastal tide heights be forecast?", "expected": ["counts penguins"]},
        ],
    )
    judged = _write_jsonl(tmp_path / "judged.jsonl", [{"question": "m", "id": "pen", "relevant": True}])
    run = run_cli("eval", questions, "--judged", judged, "--json", "--store", store)
    assert run.code == 0, run.err
    out = run.json()
    ours = out["metrics"]["paperbot"]
    assert (ours["hit@1"], ours["judged hit@1"]) == (0.0, 0.5)
    assert out["errors"]["paperbot"]["unjudged_top"] == ["t:tide"]
    table = run_cli("eval", questions, "--judged", judged, "--store", store)
    assert "judged hit@1" in table.out and "first papers nobody has judged yet" in table.out
    plain = run_cli("eval", questions, "--json", "--store", store).json()  # without --judged, no such column
    assert "judged hit@1" not in plain["metrics"]["paperbot"] and "unjudged_top" not in plain["errors"]["paperbot"]


def test_eval_errors_say_what_to_do(tmp_path: Path, beir_folder: Path, run_cli: Callable[..., Any]) -> None:
    missing = run_cli("eval", tmp_path / "nothing.jsonl", "--store", tmp_path / "store")
    assert missing.code == 2 and "no such file or folder; give a BEIR folder or a questions .jsonl" in missing.err
    wrong = run_cli("eval", beir_folder, "--offtopic", tmp_path / "x.jsonl", "--store", tmp_path / "store")
    assert wrong.code == 2 and "--offtopic, --answers and --judged apply to question files" in wrong.err
    questions = _write_jsonl(tmp_path / "q.jsonl", [{"id": "z", "question": "Zebras?", "expected": ["zebra stripes"]}])
    (tmp_path / "store").mkdir()
    folder = run_cli("eval", questions, "--store", tmp_path / "store")  # a folder, not a store: nothing written
    assert folder.code == 3 and "no store at" in folder.err and not any((tmp_path / "store").iterdir())
    Store.open(load_settings(store=tmp_path / "store")).close()  # an empty store
    empty = run_cli("eval", questions, "--store", tmp_path / "store")
    assert empty.code == 2 and "question z: no stored abstract contains 'zebra stripes'" in empty.err
