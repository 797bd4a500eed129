"""paperbot against the LangChain tutorial pipeline and the raw embedding model, on the same abstracts
in one run (issue 18): ingest throughput, warm and cold search, warm ask, start-up and memory.

Not a test (pytest does not collect it; tests/test_speed_bench.py runs a small size): a benchmark
that prints measured numbers, as a markdown table with the issue's targets, each marked met or not.
Needs the `bench` extra (`bash .ci/setup --bench`); downloads nothing (the bundled MiniLM folder,
HF_HUB_OFFLINE=1).

The abstracts are the first --papers records of a JSONL corpus (default the shared ML-conference
abstracts); each contender gets the same text, the title and the abstract (paperbot reads them from
the same records, and puts the title before each of its chunks):

- **raw model**: `SentenceTransformer(<bundled MiniLM folder>).encode` of the whole abstracts, fp32,
  its own defaults (batch 32, input cut at 256 word pieces): the fastest way to embed them once.
- **tutorial**: `RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)` ->
  `HuggingFaceEmbeddings(model_name=<same folder>)` -> `langchain_chroma.Chroma.from_documents` into a
  temporary persist directory; then warm `similarity_search(q, k=4)`.
- **paperbot**: `ingest.pipeline.run` into a fresh store (as `paperbot ingest` calls it), then warm
  `Paperbot.search` (k=10, hybrid BM25 + dense); `paperbot search Q --json` as a new process
  (cold: wall time to exit) and `paperbot --help`.
All three ingest in this process with their model already loaded (each first embeds or ingests 16
abstracts untimed), so model loading is left out alike (as tests/ingest/bench_ingest.py does).
Ingest throughputs are medians of --runs repeats, the contenders' order rotated in each repeat so
that the machine's noise hits them alike. Questions are tests/data/heldout.jsonl and
questions.jsonl, each once; latencies are over all of them but one (the warm-up).

A large store (default every record of the corpus: 8,647 abstracts; `--large 0` skips) is built
the same way, then timed: warm search and warm extractive ask (`Paperbot.ask(q, "extractive")`,
through a second Paperbot so that no ask finds its question's vector cached by the searches), and
the peak RSS of one `paperbot ask Q --json` process (its own rusage, see RSS_PROBE in speed_cli.py). Building it
takes several minutes: `--workdir DIR --keep` keeps it for the next run, which reuses it.
`--users 20` also runs benchmarks/load.py (20 chat users for --users-seconds against `paperbot
serve` on the large store, or the small one) and reports their answer p95; off by default (0), as
it adds a few minutes. Those rows are measured without kept sentence vectors (a kept file is set
aside meanwhile); `--sentences` then keeps the large store's (`paperbot ingest --sentences`: about
12 minutes for 8,647 abstracts the first time, nothing after) and times the asks, and the users, again.

PAPERBOT_* settings in the environment apply to paperbot in and out of this process (e.g.
PAPERBOT_EMBED__PRECISION=float32), except PAPERBOT_STORE and PAPERBOT_CHROMA_URL, which are
ignored; the table says which precision paperbot embedded in.

Run: .venv/bin/python benchmarks/speed.py                                  # 1,000 + 8,647 abstracts, ~16 min
     .venv/bin/python benchmarks/speed.py --workdir /tmp/speed --keep --users 20
     .venv/bin/python benchmarks/speed.py --papers 40 --large 0 --runs 1 --cold-runs 1 --json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from latency import percentile
from speed_cli import ask_peak_rss, cli_env, cli_seconds
from speed_table import table, targets

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpora" / "ml_conf_abstracts.jsonl"
QUESTIONS = (REPO / "tests" / "data" / "heldout.jsonl", REPO / "tests" / "data" / "questions.jsonl")
MODEL = "bundled:all-MiniLM-L6-v2"
WARM_UP = 16  # abstracts each contender embeds or ingests untimed first
BENCH_EXTRA = ("langchain_text_splitters", "langchain_chroma", "langchain_huggingface")


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# --- What is measured on ---


def read_records(corpus: Path, limit: int | None) -> list[dict[str, Any]]:
    """The first `limit` records (all with None) of a JSONL corpus that have abstract text."""
    if not corpus.is_file():
        raise SystemExit(
            f"no corpus at {corpus}: give --corpus FILE, a JSONL of abstracts ('abstract' or 'text', optional "
            "'title'), e.g. ../shared/corpora/ml_conf_abstracts.jsonl"
        )
    records: list[dict[str, Any]] = []
    with corpus.open(encoding="utf-8") as lines:
        for line in lines:
            if limit is not None and len(records) >= limit:
                break
            record = json.loads(line) if line.strip() else {}
            if str(record.get("abstract") or record.get("text") or "").strip():
                records.append(record)
    if not records:
        raise SystemExit(f"{corpus}: no records with an 'abstract' or 'text' field")
    return records


def text_of(record: dict[str, Any]) -> str:
    """What the raw model and the tutorial embed: the title, then the abstract (paperbot puts the title
    before each chunk). Example: {"title": "T", "abstract": "A."} -> "T. A." """
    abstract = str(record.get("abstract") or record.get("text") or "").strip()
    title = str(record.get("title") or "").strip()
    return f"{title}. {abstract}" if title else abstract


def write_jsonl(records: list[dict[str, Any]], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def questions(limit: int | None = None) -> list[str]:
    """The repository's held-out and tuning questions, each once, in file order."""
    asked: list[str] = []
    for path in QUESTIONS:
        lines = path.read_text(encoding="utf-8").splitlines()
        asked += [json.loads(line)["question"] for line in lines if line.strip()]
    unique = list(dict.fromkeys(asked))
    return unique[:limit] if limit else unique


def ms(seconds: list[float]) -> dict[str, float]:
    """p50 and p95 in milliseconds. Example: ms([0.01, 0.02]) -> {"p50_ms": 10.0, "p95_ms": 20.0}"""
    values = [s * 1000 for s in seconds]
    return {"p50_ms": round(percentile(values, 0.5), 1), "p95_ms": round(percentile(values, 0.95), 1)}


def timed(call: Callable[[str], Any], asked: list[str]) -> tuple[list[float], int]:
    """Seconds of `call(q)` for each question of `asked` but the last (the warm-up, asked first), and how
    many calls returned something non-empty."""
    call(asked[-1])
    seconds, found = [], 0
    for question in asked[:-1]:
        started = time.perf_counter()
        result = call(question)
        seconds.append(time.perf_counter() - started)
        found += bool(getattr(result, "hits", result))
    return seconds, found


# --- The contenders ---


def settings_for(store: Path) -> Any:
    from bot.settings import load_settings

    return load_settings(store=store)


class PaperbotIngest:
    """paperbot's ingest into a fresh store per call, counting the chunks it embeds and the seconds the
    model takes, so the rest (reading, chunking, Chroma, registry, BM25) shows as the difference."""

    def __init__(self) -> None:
        self.chunks = 0
        self.embed_seconds = 0.0
        self.texts: list[str] = []
        self.precision = "?"

    def __call__(self, sample: Path, store: Path) -> float:
        from bot.app import Paperbot
        from bot.cli.wiring import ingest_model
        from ingest import pipeline

        app = Paperbot(settings_for(store))
        started = time.perf_counter()
        # as `paperbot ingest` does: a new store is built in the precision this machine embeds faster (timed)
        embed, self.chunks, self.embed_seconds, self.texts = ingest_model(app), 0, 0.0, []

        def counted(texts: list[str]) -> Any:
            started = time.perf_counter()
            vectors = embed(texts)
            self.embed_seconds += time.perf_counter() - started
            self.chunks += len(texts)
            self.texts += texts
            return vectors

        report = pipeline.run([sample], app.settings, app.store, counted)
        seconds = time.perf_counter() - started
        stored = getattr(app.store, "embed", app.settings.embed)  # the precision the store was built in
        resolve = getattr(stored, "resolved_precision", None)
        self.precision = resolve() if resolve else str(getattr(stored, "precision", "float32"))
        app.store.close()
        if report.added != report.papers:
            raise SystemExit(f"paperbot ingest into {store} added {report.added} of {report.papers} papers")
        return seconds


class Tutorial:
    """The LangChain + Chroma tutorial pipeline: split, embed with HuggingFaceEmbeddings, write to Chroma."""

    def __init__(self, model: Path) -> None:
        from langchain_huggingface import HuggingFaceEmbeddings
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        self.embeddings = HuggingFaceEmbeddings(model_name=str(model))
        self.splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)
        self.chunks = 0
        self.texts: list[str] = []
        self.db: Any = None
        self.folder: Path | None = None

    def __call__(self, texts: list[str], folder: Path) -> float:
        import chromadb
        from langchain_chroma import Chroma

        started = time.perf_counter()
        docs = self.splitter.create_documents(texts)
        self.db = Chroma.from_documents(
            docs,
            self.embeddings,
            persist_directory=str(folder),
            # Telemetry off only so that nothing is sent (there is no network here); it costs no time.
            client_settings=chromadb.config.Settings(anonymized_telemetry=False),
        )
        seconds = time.perf_counter() - started
        self.chunks, self.texts, self.folder = len(docs), [d.page_content for d in docs], folder
        return seconds


def word_pieces(model: Any, texts: list[str]) -> int:
    """Word pieces the model reads of `texts` ([CLS] and [SEP] included, cut at its input limit)."""
    limit = model.max_seq_length
    pieces = model.tokenizer(texts, truncation=False, verbose=False)["input_ids"]
    return sum(min(len(ids), limit) for ids in pieces)


def ingest_round(
    records: list[dict[str, Any]], runs: int, folder: Path, raw: Any, tutorial: Tutorial, paperbot: PaperbotIngest
) -> tuple[dict[str, list[float]], Path]:
    """Seconds of each contender's ingest per repeat, their order rotated each time; the last paperbot store."""
    texts = [text_of(r) for r in records]
    sample = write_jsonl(records, folder / "sample.jsonl")
    warm = write_jsonl(records[:WARM_UP], folder / "warm.jsonl")
    say(f"warming up: each contender embeds {min(WARM_UP, len(texts))} abstracts (model load, first calls)")
    raw.encode(texts[:WARM_UP])
    tutorial(texts[:WARM_UP], folder / "tutorial-warm")
    paperbot(warm, folder / "paperbot-warm")
    times: dict[str, list[float]] = {"raw": [], "tutorial": [], "paperbot": []}
    store = folder / "paperbot-0"
    for run in range(runs):
        order = ["raw", "tutorial", "paperbot"]
        order = order[run % 3 :] + order[: run % 3]  # e.g. run 1: tutorial, paperbot, raw
        for name in order:
            if name == "raw":
                started = time.perf_counter()
                raw.encode(texts)
                times["raw"].append(time.perf_counter() - started)
            elif name == "tutorial":
                # A new folder each run (Chroma keeps a client per folder); the last one stays, to search.
                if tutorial.folder:
                    shutil.rmtree(tutorial.folder, ignore_errors=True)
                times["tutorial"].append(tutorial(texts, folder / f"tutorial-{run}"))
            else:
                shutil.rmtree(store, ignore_errors=True)
                store = folder / f"paperbot-{run}"
                times["paperbot"].append(paperbot(sample, store))
            say(f"  run {run + 1}/{runs}: {name} {len(texts) / times[name][-1]:.1f} abstracts/s")
    return times, store


# --- The large store ---


def large_store(records: list[dict[str, Any]], corpus: Path, folder: Path, paperbot: PaperbotIngest) -> dict:
    """A store of `records` in `folder` (its path under "store"), reused when a kept one of the same
    corpus and size is there and opens."""
    marker = folder / "built.json"
    wanted = {"corpus": str(corpus.resolve()), "bytes": corpus.stat().st_size, "records": len(records)}
    kept = json.loads(marker.read_text()) if marker.is_file() else {}
    if kept.get("source") == wanted and (folder / kept["store"]).is_dir():
        from bot.app import Paperbot
        from bot.errors import PaperbotError

        try:
            app = Paperbot(settings_for(folder / kept["store"]))
            count = app.paper_count()
            app.store.close()
        except PaperbotError as exc:  # e.g. built with other settings: rebuild
            say(f"large store: the kept one cannot be reused ({exc}); rebuilding it")
        else:
            if count == kept["papers"]:
                say(f"large store: reusing {folder / kept['store']} ({count:,} papers)")
                return kept | {"store": str(folder / kept["store"]), "reused": True}
    shutil.rmtree(folder, ignore_errors=True)
    # A new folder name each build: Chroma keeps one client per folder and process, and one opened on
    # the folder just removed would refuse to write ("readonly database").
    name = f"store-{time.strftime('%Y%m%d-%H%M%S')}"
    sample = write_jsonl(records, folder / "corpus.jsonl")
    say(f"large store: ingesting {len(records):,} abstracts into {folder / name} (several minutes)...")
    seconds = paperbot(sample, folder / name)
    built = {
        "source": wanted,
        "store": name,
        "papers": len(records),
        "chunks": paperbot.chunks,
        "ingest_s": round(seconds, 1),
        "ingest_per_s": round(len(records) / seconds, 2),
        "precision": paperbot.precision,
    }
    marker.write_text(json.dumps(built))
    say(f"  ingested in {seconds:.0f} s ({len(records) / seconds:.1f} abstracts/s)")
    return built | {"store": str(folder / name), "reused": False}


def measure_large(store: Path, asked: list[str], folder: Path) -> dict[str, Any]:
    """Warm search and extractive ask latencies in this process, then one `paperbot ask` process's RSS."""
    from bot.app import Paperbot

    searcher = Paperbot(settings_for(store))
    searches, found = timed(searcher.search, asked)
    papers = searcher.paper_count()
    searcher.store.close()
    asker = Paperbot(settings_for(store))  # its own vector cache: no question is cached by the searches
    asks, answered = timed(lambda q: not asker.ask(q, generator="extractive").abstained, asked)
    asker.store.close()
    rss, ask_s = ask_peak_rss(store, asked[0], folder)
    return {
        "papers": papers,
        "search": ms(searches) | {"with_hits": found},
        "ask": ms(asks) | {"answered": answered},
        "ask_process_rss_mb": rss,
        "ask_process_s": ask_s,
    }


def kept_sentences(store: Path, corpus: Path, asked: list[str], users: int, seconds: float) -> dict[str, Any]:
    """`paperbot ingest CORPUS --sentences` on the large store (its papers unchanged: only the sentences
    not kept yet are embedded), then warm extractive asks and, with `users`, the chat users again."""
    from bot.app import Paperbot

    command = [sys.executable, "-m", "bot", "--store", str(store), "ingest", str(corpus), "--sentences", "--json"]
    run = subprocess.run(command, cwd=REPO, env=cli_env(), capture_output=True, text=True, timeout=7200)
    if run.returncode != 0:
        raise SystemExit(f"paperbot ingest --sentences failed ({run.returncode}):\n{run.stderr[-3000:]}")
    report = json.loads(run.stdout)["sentences"]
    asker = Paperbot(settings_for(store))
    asks, answered = timed(lambda q: not asker.ask(q, generator="extractive").abstained, asked)
    asker.store.close()
    out = {"sentences": report, "ask": ms(asks) | {"answered": answered}, "users": None}
    if users > 0:
        say(f"{users} chat users again, the sentences kept...")
        out["users"] = load_users(store, users, seconds)
    return out


class SetAside:
    """The store's kept sentence vectors (`ingest --sentences`) moved aside while the rows without them are
    measured, and put back after."""

    def __init__(self, store: Path) -> None:
        from bot.store.paths import StorePaths

        self.path = StorePaths(store).sentences
        self.aside = self.path.with_name(self.path.name + ".aside")

    def __enter__(self) -> SetAside:
        if self.path.exists():
            self.path.rename(self.aside)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.aside.exists():
            self.aside.rename(self.path)


def load_users(store: Path, users: int, seconds: float) -> dict[str, Any]:
    """benchmarks/load.py's run of `users` chat users against `paperbot serve` on `store`."""
    command = [sys.executable, str(REPO / "benchmarks" / "load.py"), "--store", str(store)]
    command += ["--users", str(users), "--seconds", str(seconds), "--alone", "0", "--json"]
    run = subprocess.run(command, cwd=REPO, env=cli_env(), capture_output=True, text=True, timeout=3600)
    rows = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    if run.returncode != 0 or not rows:
        raise SystemExit(f"benchmarks/load.py failed ({run.returncode}):\n{run.stderr[-3000:]}")
    return dict(rows[-1])


# --- The run ---


def check_bench_extra() -> None:
    import importlib.util

    missing = [name for name in BENCH_EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        raise SystemExit(
            f"benchmarks/speed.py needs the bench extra (the LangChain tutorial pipeline; missing "
            f"{', '.join(missing)}): run `bash .ci/setup --bench`"
        )


def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    from sentence_transformers import SentenceTransformer

    from bot.embedder import model_path

    started, load_start = time.perf_counter(), os.getloadavg()[0]
    records = read_records(args.corpus, args.papers)
    asked = questions(args.queries)
    if len(asked) < 2:
        raise SystemExit("--queries: give at least 2 (one is the warm-up)")
    say(f"{len(records):,} abstracts of {args.corpus}, {len(asked)} questions; load average {load_start:.2f}")
    model = model_path(MODEL)
    raw = SentenceTransformer(str(model), device="cpu")
    tutorial, paperbot = Tutorial(model), PaperbotIngest()
    times, store = ingest_round(records, args.runs, folder / "small", raw, tutorial, paperbot)
    n = len(records)
    rates = {name: n / statistics.median(seconds) for name, seconds in times.items()}
    texts = [text_of(r) for r in records]
    result: dict[str, Any] = {
        "papers": n,
        "corpus": args.corpus.name,
        "questions": len(asked),
        "runs": args.runs,
        "cold_runs": args.cold_runs,
        "raw": {
            "ingest_per_s": round(rates["raw"], 2),
            "ingest_s": [round(s, 2) for s in times["raw"]],
            "word_pieces_per_abstract": round(word_pieces(raw, texts) / n, 1),
        },
        "tutorial": {
            "ingest_per_s": round(rates["tutorial"], 2),
            "ingest_s": [round(s, 2) for s in times["tutorial"]],
            "chunks": tutorial.chunks,
            "word_pieces_per_abstract": round(word_pieces(raw, tutorial.texts) / n, 1),
        },
        "paperbot": {
            "ingest_per_s": round(rates["paperbot"], 2),
            "ingest_s": [round(s, 2) for s in times["paperbot"]],
            "chunks": paperbot.chunks,
            "precision": paperbot.precision,
            "embed_share": round(paperbot.embed_seconds / times["paperbot"][-1], 3),  # of the last run
            "word_pieces_per_abstract": round(word_pieces(raw, paperbot.texts) / n, 1),
        },
    }
    say("searching: the tutorial's similarity_search and paperbot's search, warm...")
    seconds, found = timed(lambda q: tutorial.db.similarity_search(q, k=4), asked)
    result["tutorial"]["search"] = ms(seconds) | {"with_hits": found}
    from bot.app import Paperbot

    app = Paperbot(settings_for(store))
    seconds, found = timed(app.search, asked)  # also builds the store's caches before the cold runs
    app.store.close()
    result["paperbot"]["search"] = ms(seconds) | {"with_hits": found}
    say("cold `paperbot search` and `paperbot --help`, each a new process...")
    cold = ["--store", str(store), "search", asked[0], "--json"]
    result["paperbot"]["cold_search_s"] = cli_seconds(cold, args.cold_runs)
    # The same with the question embedded by sentence-transformers (torch), as before bot/encoder.py.
    result["paperbot"]["cold_search_torch_s"] = cli_seconds(cold, args.cold_runs, PAPERBOT_EMBED__ENGINE="torch")
    result["paperbot"]["help_s"] = cli_seconds(["--help"], 5)
    result["large"] = result["users"] = result["kept"] = None
    served, served_papers, base, reused = store, n, None, False
    try:
        if args.large != 0:
            every = read_records(args.corpus, args.large)
            base = (args.workdir or folder) / f"large-{len(every)}"
            built = large_store(every, args.corpus, base, paperbot)
            reused = built["reused"]
            served, served_papers = Path(built["store"]), len(every)
        with SetAside(served):
            if args.large != 0:
                say("large store: warm search and ask, then one `paperbot ask` process...")
                result["large"] = built | measure_large(served, asked, folder)
            if args.users > 0:
                say(f"{args.users} chat users for {args.users_seconds:.0f} s (benchmarks/load.py) on {served}...")
                numbers = load_users(served, args.users, args.users_seconds)
                result["users"] = numbers | {"store": f"{served_papers:,} papers"}
        if args.sentences and base is not None:
            say("large store: its abstracts' sentences kept (`ingest --sentences`), then asks again...")
            kept = kept_sentences(served, base / "corpus.jsonl", asked, args.users, args.users_seconds)
            if kept["users"]:
                kept["users"] |= {"store": f"{served_papers:,} papers"}
            result["kept"] = kept
    finally:
        if base and args.workdir and not args.keep and not reused:  # a store kept by an earlier run stays
            shutil.rmtree(base, ignore_errors=True)
    result["ratios"] = {
        "paperbot_ingest_per_raw_model": round(rates["paperbot"] / rates["raw"], 3),
        "paperbot_ingest_per_tutorial": round(rates["paperbot"] / rates["tutorial"], 3),
        "search_p50_tutorial_per_paperbot": round(
            result["tutorial"]["search"]["p50_ms"] / result["paperbot"]["search"]["p50_ms"], 3
        ),
    }
    result["load_start"], result["load_end"] = round(load_start, 2), round(os.getloadavg()[0], 2)
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    result["targets"] = targets(result)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="JSONL of abstracts (default: %(default)s)")
    parser.add_argument("--papers", type=int, default=1000, help="abstracts compared (first N records; default 1000)")
    parser.add_argument("--runs", type=int, default=3, help="ingest repeats; medians reported (default 3)")
    parser.add_argument("--cold-runs", type=int, default=3, help="cold `paperbot search` runs (median; default 3)")
    parser.add_argument("--large", type=int, help="papers in the large store (default: all; 0 skips it)")
    parser.add_argument("--users", type=int, default=0, help="chat users (benchmarks/load.py; default 0: skip)")
    parser.add_argument("--users-seconds", type=float, default=60, help="length of the users' run (default 60 s)")
    parser.add_argument("--queries", type=int, help="use only the first N questions (default: all)")
    parser.add_argument("--workdir", type=Path, help="where the large store is built (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the large store in --workdir, reused next time")
    parser.add_argument(
        "--sentences",
        action="store_true",
        help="then keep the large store's sentence vectors (`ingest --sentences`) and time asks (and users) again",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args()
    if args.keep and not args.workdir:
        parser.error("--keep needs --workdir DIR (where the kept store goes)")
    if min(args.papers, args.runs, args.cold_runs) < 1 or (args.large or 0) < 0 or args.users < 0:
        parser.error("--papers, --runs and --cold-runs must be at least 1; --large and --users at least 0")
    # Nothing is downloaded: the model is the bundled folder, and the hub libraries must not look online.
    os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_HUB_DISABLE_PROGRESS_BARS="1")
    for name in ("PAPERBOT_STORE", "PAPERBOT_CHROMA_URL"):
        os.environ.pop(name, None)
    check_bench_extra()
    read_records(args.corpus, 1)  # a missing corpus fails before any model loads
    with tempfile.TemporaryDirectory(prefix="paperbot-speed-") as tmp:
        result = run(args, Path(tmp))
    print(json.dumps(result) if args.json else table(result), flush=True)


if __name__ == "__main__":
    main()
