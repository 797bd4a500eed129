"""How today's product holds up as the corpus grows: stores of N synthetic abstracts built and read
through paperbot's own ingest, store, search and answer code (issue 17).

Not a test (pytest does not collect it; tests/test_scale_bench.py runs a small size): a benchmark
that prints measured numbers. Real abstracts at these sizes are not on this machine, and embedding
a million of them with MiniLM would take about 20 hours on 2 cores, so the corpus is synthetic but
made of real text and real vectors:

- Sentences come from the shared corpora (../shared/corpora: ML-conference abstracts and SciFact),
  split as the product splits them (bot.text.sentences); only sentences that stay one sentence
  whatever stands next to them are kept. A seeded sample of --sentences of them is embedded once
  with the product's embedder (bot.embedding) and cached as .npy under --cache, so reruns skip it.
- A synthetic abstract is 4-8 of those sentences drawn at random (seeded); no two are the same. No
  titles. The abstracts are written to a JSONL file in the work folder (never in the repository).
- Ingest is the product's own (`ingest.pipeline.run`, as `paperbot ingest` calls it), handed an
  `embed` that looks each chunk's sentences up instead of running the model: a chunk's vector is the
  normalised mean of its sentences' vectors. A sentence not in the table (none expected) is embedded
  for real and counted (`fallback_sentences`). The ingest rate therefore excludes model time; the
  model's own rate is measured on real abstracts and the real-embedding time projected from it.

Measured per size: ingest rate (papers/s into a fresh store) and the store's disk size; in a fresh
reader process (`--reader`, the Paperbot facade as the CLI and UI use it), after one warm-up
question, warm search and warm extractive ask latency p50/p95 over --queries questions each of
tests/data (questions.jsonl, heldout.jsonl; searches and asks get different ones, so no ask finds
its question's vector cached), and the reader's peak RSS (VmHWM) after the searches and after the
asks; before that reader, the first process to read the store after its ingest (`first_read_s`,
`first_read_rss_mb`: one search, which reads every chunk vector from Chroma and leaves the vector
cache later readers load); then the cold start of `python -m bot --store STORE search Q` (wall
time, median of 3 runs, --cold-runs). With --keep, a later run with --reuse reads the kept stores
again without ingesting them (the vector cache removed first, so the first read is measured again).
Last, for an embedded store, --add new papers are ingested (`add_s`, including the vector cache's
update, `add_cache_s`, and the BM25 indices' rebuild, `add_bm25_s`) and a cold search timed after it
(`add_cold_search_s`), then all but one pruned (`prune_s`, `prune_cache_s`, `prune_bm25_s`).

Run: .venv/bin/python benchmarks/scale.py                      # 10,000 and 100,000 papers
     .venv/bin/python benchmarks/scale.py --sizes 2000 --queries 10 --json
     .venv/bin/python benchmarks/scale.py --sizes 1000000 --workdir /big/disk --keep
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from latency import percentile

REPO = Path(__file__).resolve().parents[1]
CORPORA = REPO.parent / "shared" / "corpora"
SOURCES = ((Path("ml_conf_abstracts.jsonl"), "abstract"), (Path("scifact") / "corpus.jsonl", "text"))
QUESTIONS = (REPO / "tests" / "data" / "questions.jsonl", REPO / "tests" / "data" / "heldout.jsonl")
PROBE_BEFORE, PROBE_AFTER = "We study this.", "It works."


def _settings(store: Path | None = None, url: str | None = None) -> Any:
    from bot.settings import load_settings

    return load_settings(store=store, chroma_url=url) if store else load_settings(chroma_url=url)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def chroma_server(path: Path) -> Iterator[str]:
    """A `chroma run` server keeping its data in `path`, on a free loopback port; yields its URL."""
    port = _free_port()
    log = path.with_suffix(".log")
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(Path(sys.executable).parent / "chroma"), "run", "--path", str(path), "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"chroma run did not start:\n{log.read_text(errors='replace')[-2000:]}") from None
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def _abstracts(corpora: Path) -> list[str]:
    """Every abstract text of the shared corpora, in file order."""
    texts: list[str] = []
    for name, key in SOURCES:
        with (corpora / name).open(encoding="utf-8") as lines:
            texts += [str(json.loads(line).get(key) or "") for line in lines if line.strip()]
    return texts


def source_sentences(corpora: Path) -> list[str]:
    """Distinct sentences of the real abstracts that stay one whole chunk-able sentence next to any other.

    Kept: sentences shown as written (`display` changes nothing), that `split` leaves whole, keeps apart
    from a sentence before and after, and that fit one chunk (so chunking never cuts them).
    """
    from bot.text.chunking import size
    from bot.text.normalise import display
    from bot.text.sentences import split

    chunk = _settings().chunk
    kept: dict[str, None] = {}
    for text in _abstracts(corpora):
        for sentence in split(display(text)):
            if sentence in kept or not 40 <= len(sentence) <= 600 or display(sentence) != sentence:
                continue
            if split(f"{PROBE_BEFORE} {sentence} {PROBE_AFTER}") != [PROBE_BEFORE, sentence, PROBE_AFTER]:
                continue
            if size(sentence, chunk) <= chunk.max_tokens // 2:
                kept[sentence] = None
    return list(kept)


def sentence_vectors(sentences: list[str], cache: Path) -> np.ndarray:
    """MiniLM vectors of `sentences` from the product's embedder, cached in `cache` by content and model."""
    settings = _settings()
    key = hashlib.sha256("\n".join([settings.embed.model, *sentences]).encode()).hexdigest()[:16]
    path = cache / f"sentences-{len(sentences)}-{key}.npy"
    if path.is_file():
        return np.load(path)
    from bot.embedding import CachedEmbedder

    model = CachedEmbedder(settings.embed)
    started, parts, step = time.perf_counter(), [], 1024
    for first in range(0, len(sentences), step):
        parts.append(model.fresh(sentences[first : first + step]))
        done = first + len(parts[-1])
        rate = done / (time.perf_counter() - started)
        print(f"  embedded {done:,}/{len(sentences):,} sentences ({rate:.0f}/s)", file=sys.stderr, flush=True)
    vectors = np.concatenate(parts).astype(np.float32)
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path.with_suffix(".tmp.npy"), vectors)
    os.replace(path.with_suffix(".tmp.npy"), path)
    return vectors


class SentenceTable:
    """The `embed` handed to ingest: a chunk's vector is the normalised mean of its sentences' vectors.

    Example: table(["A. B."]) -> the unit vector along vec("A.") + vec("B."), no model run
    """

    def __init__(self, sentences: list[str], vectors: np.ndarray) -> None:
        self.index = {s: i for i, s in enumerate(sentences)}
        self.vectors = vectors
        self.chunks = self.fallback_sentences = 0
        self.seconds = 0.0

    def __call__(self, texts: list[str]) -> np.ndarray:
        from bot.text.sentences import split

        started = time.perf_counter()
        out = np.empty((len(texts), self.vectors.shape[1]), dtype=np.float32)
        for row, text in enumerate(texts):
            parts = split(text)
            ids = [self.index.get(s, -1) for s in parts]
            if -1 in ids:
                self._learn([s for s, i in zip(parts, ids, strict=True) if i == -1])
                ids = [self.index[s] for s in parts]
            mean = self.vectors[ids].sum(axis=0)
            out[row] = mean / max(float(np.linalg.norm(mean)), 1e-12)
        self.chunks += len(texts)
        self.seconds += time.perf_counter() - started
        return out

    def _learn(self, missing: list[str]) -> None:
        """Embed sentences not in the table for real (counted), and add them to it."""
        from bot.embedding import CachedEmbedder

        fresh = CachedEmbedder(_settings().embed).fresh(list(dict.fromkeys(missing)))
        for sentence, vector in zip(dict.fromkeys(missing), fresh, strict=True):
            self.index[sentence] = len(self.vectors)
            self.vectors = np.vstack([self.vectors, vector[None, :]])
        self.fallback_sentences += len(missing)


def write_corpus(path: Path, n: int, sentences: list[str], seed: int) -> None:
    """`n` distinct synthetic abstracts of 4-8 sentences each, one JSON record a line."""
    rng = random.Random(seed)
    seen: set[tuple[int, ...]] = set()
    with path.open("w", encoding="utf-8") as out:
        while len(seen) < n:
            picked = tuple(rng.sample(range(len(sentences)), rng.randint(4, 8)))
            if picked in seen:
                continue
            seen.add(picked)
            record = {"id": f"syn-{len(seen):07d}", "abstract": " ".join(sentences[i] for i in picked)}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def model_rate(corpora: Path, seed: int, sample: int) -> dict[str, float]:
    """Real abstracts per second through the product's embedder (their chunks, as ingest embeds them)."""
    from bot.embedding import CachedEmbedder
    from bot.text.chunking import chunk_texts
    from bot.text.normalise import display

    settings = _settings()
    abstracts = random.Random(seed).sample(_abstracts(corpora), sample)
    texts = [c for a in abstracts for c in chunk_texts(display(a), settings.chunk)]
    model = CachedEmbedder(settings.embed)
    model.fresh(texts[:16])  # load the model and warm it up
    texts.sort(key=len, reverse=True)  # longest first, as ingest does
    started = time.perf_counter()
    for first in range(0, len(texts), settings.storage.embed_slice):
        model.fresh(texts[first : first + settings.storage.embed_slice])
    seconds = time.perf_counter() - started
    return {"papers": sample, "chunks": len(texts), "seconds": seconds, "papers_per_s": sample / seconds}


def questions() -> list[str]:
    """The repository's self-contained questions (follow-ups left out), each once."""
    asked: list[str] = []
    for path in QUESTIONS:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        asked += [row["question"] for row in rows if not row.get("previous")]
    return list(dict.fromkeys(asked))


def _clean_env(dense_index: str = "auto") -> dict[str, str]:
    """This environment without PAPERBOT_* settings, so the product runs on its defaults (but
    `dense_index`, which --dense-index sets)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}
    return env | ({"PAPERBOT_STORAGE__DENSE_INDEX": dense_index} if dense_index != "auto" else {})


def _peak_rss_mb() -> float:
    with open("/proc/self/status", encoding="utf-8") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _percentiles(seconds: list[float]) -> tuple[float, float]:
    """(p50, p95) in milliseconds."""
    ms = [s * 1000 for s in seconds]
    return round(statistics.median(ms), 1), round(percentile(ms, 0.95), 1)


PAPER_INDEX = (1000, 3000, 10000)  # approximate_papers tried on an embedded store
CHUNK_INDEX = (100, 300, 1000, 2000)  # approximate_chunks tried on a server (on an embedded store: the last)


def approximate_misses(app: Any, asked: list[str], server: bool = False) -> list[dict[str, Any]]:
    """How often search through Chroma's index (dense_index 'approximate') leaves out of its top 10 a
    paper the exact search ranks in its top 10: both are the product's own search. An embedded store is
    tried with its candidates from the papers' index (`approximate_papers` n, the default there) and from
    the chunks' index (`approximate_chunks` 2,000, as before); a server with the chunks' index. Each row
    also has the median time of its searches (warm).

    Example: 3 of 500 exact top-10 papers missing from the approximate top 10 -> rate 0.006.
    """
    from bot.app import Paperbot

    def searcher(storage: dict[str, Any]) -> Any:
        settings = app.settings.model_copy(update={"storage": app.settings.storage.model_copy(update=storage)})
        return Paperbot(settings)

    exact = searcher({"dense_index": "exact"})
    truth = {q: [h.paper.paper_id for h in exact.search(q, k=10).hits] for q in asked}
    exact.store.close()
    del exact
    tried = [("chunks", n) for n in CHUNK_INDEX]
    if not server:
        tried = [("papers", n) for n in PAPER_INDEX] + tried[-1:]
    rows = []
    for index, n in tried:
        storage = {"approximate_papers": n} if index == "papers" else {"approximate_papers": 0, "approximate_chunks": n}
        near = searcher({"dense_index": "approximate"} | storage)
        near.search(asked[-1])  # warm: its indices, and the model (the truth's searcher had it)
        missed = total = 0
        seconds = []
        for question in asked:
            started = time.perf_counter()
            found = {h.paper.paper_id for h in near.search(question, k=10).hits}
            seconds.append(time.perf_counter() - started)
            missed += sum(pid not in found for pid in truth[question])
            total += len(truth[question])
        near.store.close()
        rate = round(missed / max(total, 1), 4)
        p50 = _percentiles(seconds)[0]
        rows.append(
            {
                "index": index,
                f"approximate_{index}": n,
                "missed": missed,
                "of": total,
                "rate": rate,
                "search_p50_ms": p50,
            }
        )
    return rows


def reader(store: Path, count: int, url: str | None = None) -> dict[str, Any]:
    """In this (fresh) process: open the store as the CLI does, warm up, time searches then asks."""
    from bot.app import Paperbot

    started = time.perf_counter()
    app = Paperbot(_settings(store, url))
    asked = questions()
    # Searches and asks get different questions, so no ask finds its question's vector cached.
    count = min(count, (len(asked) - 1) // 2)
    warm, searched, answered = asked[-1], asked[:count], asked[count : 2 * count]
    app.search(warm)  # loads the corpus, the indices and the model
    first = time.perf_counter() - started
    app.ask(warm, generator="extractive")
    searches, found = [], 0
    for q in searched:
        t = time.perf_counter()
        found += bool(app.search(q).hits)
        searches.append(time.perf_counter() - t)
    rss_search = _peak_rss_mb()
    asks = []
    for q in answered:
        t = time.perf_counter()
        app.ask(q, generator="extractive")
        asks.append(time.perf_counter() - t)
    search_p50, search_p95 = _percentiles(searches)
    ask_p50, ask_p95 = _percentiles(asks)
    rss_after_asks = round(_peak_rss_mb())
    dense_index = type(app.store.corpus().vectors).__name__
    misses = approximate_misses(app, asked[: 2 * count], server=url is not None)
    return {
        "papers_in_store": app.paper_count(),
        "dense_path": "approximate" if dense_index == "NearestVectors" else "exact",
        "queries": count,
        "searches_with_hits": found,
        "first_search_s": round(first, 2),
        "search_p50_ms": search_p50,
        "search_p95_ms": search_p95,
        "ask_p50_ms": ask_p50,
        "ask_p95_ms": ask_p95,
        "reader_rss_search_mb": round(rss_search),
        "reader_rss_peak_mb": rss_after_asks,
        "approximate_misses": misses,
    }


def first_reader(store: Path, url: str | None = None) -> dict[str, Any]:
    """In this (fresh) process, the first to read the store after its ingest: one search, which reads
    every chunk vector from Chroma and leaves the vector cache every later reader loads instead."""
    from bot.app import Paperbot

    started = time.perf_counter()
    app = Paperbot(_settings(store, url))
    app.search(questions()[0])
    return {"first_read_s": round(time.perf_counter() - started, 2), "first_read_rss_mb": round(_peak_rss_mb())}


def _run_reader(
    store: Path, count: int, url: str | None = None, dense_index: str = "auto", first: bool = False
) -> dict[str, Any]:
    server = ["--reader-url", url] if url else []
    mode = ["--first-reader"] if first else ["--queries", str(count)]
    run = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--reader", str(store), *mode, *server],
        cwd=REPO,
        env=_clean_env(dense_index),
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if run.returncode != 0:
        raise SystemExit(f"the reader over {store} failed:\n{run.stderr[-3000:]}")
    return dict(json.loads(run.stdout.strip().splitlines()[-1]))


def cold_search(store: Path, question: str, runs: int = 3, url: str | None = None, dense_index: str = "auto") -> float:
    """Median wall seconds of `python -m bot --store STORE search Q`, each a new process."""
    times = []
    server = ["--chroma-url", url] if url else []
    for _ in range(runs):
        started = time.perf_counter()
        run = subprocess.run(
            [sys.executable, "-m", "bot", "--store", str(store), *server, "search", question],
            cwd=REPO,
            env=_clean_env(dense_index),
            capture_output=True,
            text=True,
            timeout=1800,
        )
        times.append(time.perf_counter() - started)
        if run.returncode != 0:
            raise SystemExit(f"`paperbot search` over {store} failed:\n{run.stderr[-3000:]}")
    return round(statistics.median(times), 2)


def disk_mb(folder: Path) -> float:
    return round(sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20, 1)


def measure(n: int, folder: Path, table: SentenceTable, sentences: list[str], args: argparse.Namespace) -> dict:
    """Build a store of `n` synthetic papers in `folder` and measure it: embedded, or with --server
    on a `chroma run` server, read by a second client whose folder starts empty."""
    folder.mkdir(parents=True, exist_ok=True)
    if not (args.reuse and (folder / "store").is_dir()):
        for old in ("store", "client", "server"):
            shutil.rmtree(folder / old, ignore_errors=True)
        write_corpus(folder / "corpus.jsonl", n, sentences, args.seed + n)
    if not args.server:
        row = _measure(n, folder, None, table, args)
        row.update(add_and_prune(n, folder, table, sentences, args))
    else:
        with chroma_server(folder / "server") as url:
            row = _measure(n, folder, url, table, args)
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)
    return row


def _measure(n: int, folder: Path, url: str | None, table: SentenceTable, args: argparse.Namespace) -> dict:
    from bot.app import Paperbot
    from ingest import pipeline

    corpus, store = folder / "corpus.jsonl", folder / "store"
    # On a server, a second client reads: its folder starts empty and fills from the server.
    read_from = folder / "client" if url else store
    chunks_before, lookup_before, fallback_before = table.chunks, table.seconds, table.fallback_sentences
    settings = _settings(store, url)
    app = Paperbot(settings)
    built = {}
    if args.reuse and app.paper_count():
        # Read again as kept by an earlier --keep run; the first reader starts from no vector cache.
        for cache in store.glob("corpus-vectors-*.npz"):
            cache.unlink()
        shutil.rmtree(folder / "client", ignore_errors=True)
        print(f"  reusing the store of {app.paper_count():,} papers in {store}", file=sys.stderr, flush=True)
    else:
        started = time.perf_counter()
        report = pipeline.run([corpus], settings, app.store, table)  # as bot/cli/wiring.py's ingest
        ingest_s = time.perf_counter() - started
        print(f"  ingested {report.papers:,} papers in {ingest_s:.1f} s", file=sys.stderr, flush=True)
        built = {
            "ingested": report.papers,
            "chunks": table.chunks - chunks_before,
            "fallback_sentences": table.fallback_sentences - fallback_before,
            "ingest_s": round(ingest_s, 1),
            "ingest_papers_per_s": round(n / ingest_s, 1),
            "vector_lookup_s": round(table.seconds - lookup_before, 1),
        }
    app.store.close()
    del app
    gc.collect()
    first = _run_reader(read_from, 0, url, args.dense_index, first=True)
    read = _run_reader(read_from, args.queries, url, args.dense_index)
    cold = cold_search(read_from, questions()[0], args.cold_runs, url, args.dense_index)
    disk = disk_mb(read_from) + (disk_mb(folder / "server") + disk_mb(store) if url else 0.0)
    return {
        "papers": n,
        "where": "chroma run server" if url else "embedded",
        **built,
        **first,
        **read,
        "cold_search_s": cold,
        "disk_mb": round(disk, 1),
        "real_embed_hours": round(n / args.model_rate / 3600, 2),
        "load_avg_1min": round(os.getloadavg()[0], 2),  # the machine's load: other jobs skew every figure
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
    }


def _timed(method: Any, spent: dict[str, float], name: str) -> Any:
    """`method`, adding the seconds each call takes to spent[name]."""

    def timed() -> None:
        started = time.perf_counter()
        method()
        spent[name] += time.perf_counter() - started

    return timed


def add_and_prune(n: int, folder: Path, table: SentenceTable, sentences: list[str], args: argparse.Namespace) -> dict:
    """After the reads: ingest --add new synthetic papers (added.jsonl, the same ones every run) into
    the embedded store, time a cold CLI search after it, then prune all but the first of them again.
    Each ingest updates the vector cache of the version before (bot.store.cacheupdate) instead of
    leaving the next reader to read every vector from Chroma (149-164 s at a million papers)."""
    if args.add <= 0:
        return {}
    from bot.app import Paperbot
    from bot.store.vectors import VectorCache
    from ingest import pipeline

    store, extra = folder / "store", folder / "added.jsonl"
    write_corpus(extra, args.add, sentences, args.seed + n + 1)
    row: dict[str, Any] = {}
    for step, prune in (("add", False), ("prune", True)):
        if prune:  # keep the first, so that the file is not empty; the next run finds it stored
            extra.write_text(extra.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
        app = Paperbot(_settings(store))
        spent = {"cache": 0.0, "bm25": 0.0}
        for name, method in (("cache", "cache_vectors"), ("bm25", "refresh_lexical")):
            setattr(app.store, method, _timed(getattr(app.store, method), spent, name))
        started = time.perf_counter()
        report = pipeline.run([extra], app.settings, app.store, table, prune=prune)
        row[f"{step}_s"] = round(time.perf_counter() - started, 2)
        row[f"{step}_cache_s"], row[f"{step}_bm25_s"] = round(spent["cache"], 2), round(spent["bm25"], 2)
        row[f"{step}_papers"] = report.removed if prune else report.added
        version, fingerprint = app.store.registry.version(), app.store.fingerprint
        row[f"{step}_cache_kept"] = VectorCache.find(store, version, fingerprint) is not None
        app.store.close()
        del app
        gc.collect()
        print(f"  {step}: {row[f'{step}_papers']} papers in {row[f'{step}_s']} s", file=sys.stderr, flush=True)
        if not prune:
            row["add_cold_search_s"] = cold_search(store, questions()[0], args.cold_runs, None, args.dense_index)
    return row


COLUMNS = (
    ("papers", "papers", "{:,}"),
    ("chunks", "chunks", "{:,}"),
    ("ingest_papers_per_s", "ingest/s", "{:,.0f}"),
    ("search_p50_ms", "search p50", "{:.0f} ms"),
    ("search_p95_ms", "p95", "{:.0f} ms"),
    ("ask_p50_ms", "ask p50", "{:.0f} ms"),
    ("ask_p95_ms", "p95", "{:.0f} ms"),
    ("reader_rss_search_mb", "RSS search", "{:,} MB"),
    ("reader_rss_peak_mb", "RSS +ask", "{:,} MB"),
    ("first_read_s", "1st read", "{:.1f} s"),
    ("first_read_rss_mb", "RSS 1st", "{:,} MB"),
    ("cold_search_s", "cold search", "{:.1f} s"),
    ("disk_mb", "disk", "{:,.0f} MB"),
    ("add_s", "+papers", "{:.1f} s"),
    ("add_cold_search_s", "cold after", "{:.1f} s"),
    ("real_embed_hours", "real embed", "{:.1f} h"),
)


def print_table(rows: list[dict]) -> None:
    cells = [[fmt.format(row[key]) if key in row else "-" for key, _, fmt in COLUMNS] for row in rows]
    widths = [max(len(title), *(len(c[i]) for c in cells)) for i, (_, title, _) in enumerate(COLUMNS)]
    print("  ".join(title.rjust(w) for (_, title, _), w in zip(COLUMNS, widths, strict=True)))
    for c in cells:
        print("  ".join(cell.rjust(w) for cell, w in zip(c, widths, strict=True)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000], help="papers per store")
    parser.add_argument("--queries", type=int, default=50, help="questions timed per size (search and ask)")
    parser.add_argument("--sentences", type=int, default=20_000, help="real sentences embedded and recombined")
    parser.add_argument("--cold-runs", type=int, default=3, help="cold CLI searches timed per size (median)")
    parser.add_argument("--model-sample", type=int, default=200, help="real abstracts embedded to time the model")
    parser.add_argument("--corpora", type=Path, default=CORPORA, help="the shared corpora folder")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "paperbot-bench")
    parser.add_argument("--workdir", type=Path, help="where stores are built (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep each size's corpus and store")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument(
        "--add", type=int, default=100, help="papers ingested into each embedded store after its reads (0: none)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON line per size instead of a table")
    parser.add_argument("--server", action="store_true", help="store on a `chroma run` server, read by a 2nd client")
    parser.add_argument(
        "--dense-index",
        choices=("auto", "exact", "approximate"),
        default="auto",
        help="the readers' storage.dense_index (default: the product's own, auto)",
    )
    parser.add_argument(
        "--reuse", action="store_true", help="read the stores an earlier --keep run left in --workdir, without ingest"
    )
    parser.add_argument("--reader", type=Path, help=argparse.SUPPRESS)  # internal: the reader process
    parser.add_argument("--first-reader", action="store_true", help=argparse.SUPPRESS)  # internal: its first read
    parser.add_argument("--reader-url", help=argparse.SUPPRESS)  # internal: the reader's server
    args = parser.parse_args()
    if args.reader:
        if args.first_reader:
            print(json.dumps(first_reader(args.reader, args.reader_url)))
        else:
            print(json.dumps(reader(args.reader, args.queries, args.reader_url)))
        return
    if not (args.corpora / SOURCES[0][0]).is_file():
        raise SystemExit(f"no shared corpora at {args.corpora}; give --corpora")

    say = (lambda text: print(text, file=sys.stderr, flush=True)) if args.json else print
    pool = source_sentences(args.corpora)
    sentences = random.Random(args.seed).sample(pool, min(args.sentences, len(pool)))
    say(f"{len(pool):,} usable real sentences; {len(sentences):,} sampled and embedded once (cached in {args.cache})")
    started = time.perf_counter()
    table = SentenceTable(sentences, sentence_vectors(sentences, args.cache))
    say(f"sentence vectors ready in {time.perf_counter() - started:.1f} s")
    rate = model_rate(args.corpora, args.seed, args.model_sample)
    args.model_rate = rate["papers_per_s"]
    say(
        f"model rate: {rate['papers']} real abstracts ({rate['chunks']} chunks) in {rate['seconds']:.1f} s = "
        f"{rate['papers_per_s']:.1f} papers/s embedded for real"
    )
    rows = []
    with tempfile.TemporaryDirectory(prefix="paperbot-scale-") as tmp:
        base = args.workdir or Path(tmp)
        for n in args.sizes:
            say(f"size {n:,}:")
            row = measure(n, base / f"papers-{n}", table, sentences, args)
            row["model_papers_per_s"] = round(rate["papers_per_s"], 2)
            row["sentences"] = len(sentences)
            rows.append(row)
            if args.json:
                print(json.dumps(row), flush=True)
    if not args.json:
        print()
        print_table(rows)
        print(
            "\ningest/s excludes model time (vectors composed from cached sentence vectors); "
            "real embed = projected MiniLM time at the measured model rate"
        )


if __name__ == "__main__":
    main()
