"""How `ingest --where` reads an arXiv metadata snapshot: a synthetic snapshot of --lines records is
streamed through the filter, and the peak memory and speed of each stage are measured (issue 19).

Not a test (pytest does not collect it): a benchmark that prints measured numbers. The real
snapshot (Kaggle's arxiv-metadata-oai-snapshot.json, 2.7 million lines, ~4 GB) is not on this
machine, so the file is synthetic but laid out as the real one: `id` (new-style, from its month),
`submitter`, `authors` as one string, `title` and `abstract` hard-wrapped with leading spaces,
`categories`, `versions`, `update_date`, `authors_parsed`, and for some a `doi` and `journal-ref`;
about 1.5 KB a line, as in the real file. Abstracts are 5-9 sentences drawn (seeded) from the
ML-conference abstracts in ../shared/corpora, or from a few built-in ones when that is absent.

Each stage runs in a child process of its own, whose peak RSS (ru_maxrss from os.wait4) is its
memory high-water mark:

- `baseline`: the child imports the reader and stops: what Python and paperbot's modules take.
- `whole file`: decoding the file whole and splitting it into lines, as ingest read JSON lines
  before it streamed them (the first step of the old path, before any record was made).
- `read, selective`: `ingest.readers.read_file` with `--where categories~cs.DL` (one record in
  500: ~200 of 100,000), the read-and-filter stage alone, no embedding.
- `read, broad`: the same with `categories~cs.LG` and `year>=2023` (~15% kept): memory grows with
  the records kept, not with the file.
- `paperbot ingest`: the whole path, `python -m bot ingest FILE --where categories~cs.DL --json`
  into a fresh store (reading, then embedding the ~200 papers kept with the real model); and, to
  compare, `paperbot ingest` of a file holding only those ~200 records: what the model, Chroma and
  the store take whatever the input, so the difference is what reading the snapshot adds.

Run: .venv/bin/python benchmarks/snapshot_stream.py                 # 100,000 lines
     .venv/bin/python benchmarks/snapshot_stream.py --lines 20000 --no-ingest --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpora" / "ml_conf_abstracts.jsonl"
SELECTIVE = ["categories~cs.DL"]
BROAD = ["categories~cs.LG", "year>=2023"]
RARE_EVERY = 500  # one record in 500 is in cs.DL: 200 of 100,000
_BUILT_IN = (
    "We propose a simple method for learning sparse representations from unlabelled data. "
    "Experiments on three benchmarks show consistent gains over strong baselines. "
    "Our analysis shows that the improvement comes from better calibration of the model's confidence. "
    "The approach scales linearly with the number of training examples and needs no extra memory. "
    "We release code and data to support future research on this problem. "
    "Existing methods assume that training and test data come from the same distribution. "
    "We relax this assumption and prove a bound on the error under covariate shift. "
    "Ablations show that both components of the objective are needed."
)
_CATEGORIES = ["cs.LG", "cs.CL", "cs.CV", "stat.ML", "cs.AI", "cs.RO", "math.OC", "cs.IR", "eess.SP", "q-bio.NC"]
_NAMES = ["Ada", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ines", "Jonas", "Kwame", "Lucia"]
_SURNAMES = ["Okafor", "Lindqvist", "Tanabe", "Haddad", "Ferrer", "Nowak", "Raghunathan", "Boateng", "Park"]


def sentences() -> list[str]:
    """Sentences of real ML abstracts (the shared corpus), or of the built-in text when it is absent."""
    found: list[str] = []
    if CORPUS.is_file():
        with CORPUS.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines):
                if number >= 3000:
                    break
                abstract = json.loads(line).get("abstract") or ""
                found.extend(s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", abstract) if 40 <= len(s) <= 300)
    return found or re.split(r"(?<=\.)\s+", _BUILT_IN)


def write_snapshot(path: Path, lines: int, rare: Path | None = None, seed: int = 19) -> None:
    """`lines` synthetic snapshot records; record n is in cs.DL when n % RARE_EVERY == 0, and those
    records are also written to `rare` when given."""
    rng = random.Random(seed)
    pool = sentences()
    with path.open("w", encoding="utf-8") as out, (rare or Path(os.devnull)).open("w", encoding="utf-8") as few:
        for n in range(lines):
            year = rng.choice([2015, 2017, 2019, 2020, 2021, 2022, 2023, 2023, 2024, 2024])
            month = rng.randint(1, 12)
            paper_id = f"{year % 100:02d}{month:02d}.{n % 100000:05d}"
            cats = rng.sample(_CATEGORIES, rng.randint(1, 3))
            if n % RARE_EVERY == 0:
                cats.append("cs.DL")
            names = [(rng.choice(_SURNAMES), rng.choice(_NAMES)) for _ in range(rng.randint(1, 5))]
            authors = ", ".join(f"{first} {last}" for last, first in names)
            authors = re.sub(r", ([^,]+)$", r" and \1", authors)
            abstract = " ".join(rng.choice(pool) for _ in range(rng.randint(5, 9)))
            title = " ".join(rng.choice(pool).split()[: rng.randint(6, 14)]).rstrip(".,;:")
            record: dict[str, Any] = {
                "id": paper_id,
                "submitter": f"{names[0][1]} {names[0][0]}",
                "authors": authors,
                "title": "\n  ".join(textwrap.wrap(title, 60)),
                "comments": f"{rng.randint(6, 30)} pages",
                "journal-ref": None,
                "doi": None,
                "report-no": None,
                "categories": " ".join(cats),
                "license": "http://creativecommons.org/licenses/by/4.0/",
                "abstract": "  " + "\n".join(textwrap.wrap(abstract, 80)) + "\n",
                "versions": [{"version": "v1", "created": f"Mon, {rng.randint(1, 28)} Jan {year} 10:00:00 GMT"}],
                "update_date": f"{min(year + rng.randint(0, 2), 2025)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
                "authors_parsed": [[last, first, ""] for last, first in names],
            }
            if rng.random() < 0.3:
                record["doi"] = f"10.{rng.randint(1000, 9999)}/j.{n}"
                record["journal-ref"] = f"Journal of Synthetic Results {rng.randint(1, 60)} ({year})"
            out.write(json.dumps(record) + "\n")
            if n % RARE_EVERY == 0:
                few.write(json.dumps(record) + "\n")


def child(stage: str, path: Path, where: list[str]) -> None:
    """Run one stage in this (child) process and print what it measured as JSON."""
    from ingest.decoding import decode, split_lines
    from ingest.readers import FORMATS, read_file
    from ingest.where import RecordFilter

    started = time.perf_counter()
    result: dict[str, Any] = {}
    if stage == "whole":
        text = decode(path, "utf-8", FORMATS)
        result["lines"] = len(split_lines(text))
    elif stage == "read":
        said: list[str] = []
        where_filter = RecordFilter(where)
        records = read_file(path, where=where_filter, say=said.append)
        result.update(kept=len(records), left_out=where_filter.left_out)
    result["seconds"] = time.perf_counter() - started
    print(json.dumps(result))


def run_child(args: list[str], env: dict[str, str] | None = None) -> tuple[dict[str, Any], float, float]:
    """(the child's JSON output, its wall seconds, its peak RSS in MB) of `python args...`."""
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        # Files, not pipes: os.wait4 reaps the child itself (for its rusage), so nothing else may wait.
        process = subprocess.Popen([sys.executable, *args], cwd=REPO, stdout=out, stderr=err, text=True, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        if process.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed ({process.returncode}):\n{err.read()}")
        lines = [line for line in out.read().splitlines() if line.strip()]
    return json.loads(lines[-1]) if lines else {}, seconds, usage.ru_maxrss / 1024  # ru_maxrss: KiB on Linux


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=100_000, help="records in the synthetic snapshot")
    parser.add_argument("--workdir", type=Path, default=None, help="folder for the snapshot and store (default: temp)")
    parser.add_argument("--no-ingest", action="store_true", help="skip the `paperbot ingest` stage (embedding)")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object")
    parser.add_argument("--child", nargs=3, metavar=("STAGE", "FILE", "WHERE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        stage, file, where = args.child
        child(stage, Path(file), json.loads(where))
        return 0

    work = Path(tempfile.mkdtemp(prefix="snapshot-stream-", dir=args.workdir))
    try:
        path, rare = work / "arxiv-metadata-oai-snapshot.jsonl", work / "rare.jsonl"
        started = time.perf_counter()
        write_snapshot(path, args.lines, rare)
        size_mb = path.stat().st_size / 1e6
        print(
            f"wrote {args.lines:,} lines ({size_mb:,.1f} MB) in {time.perf_counter() - started:.1f} s", file=sys.stderr
        )
        me = str(Path(__file__).resolve())
        rows: list[dict[str, Any]] = []
        stages = [
            ("baseline (imports only)", ["baseline", str(path), "[]"]),
            ("whole file (decode + split)", ["whole", str(path), "[]"]),
            (f"read, selective {' '.join(SELECTIVE)}", ["read", str(path), json.dumps(SELECTIVE)]),
            (f"read, broad {' '.join(BROAD)}", ["read", str(path), json.dumps(BROAD)]),
        ]
        for name, child_args in stages:
            result, _, rss = run_child([me, "--child", *child_args])
            seconds = result["seconds"]
            rows.append(
                {
                    "stage": name,
                    "kept": result.get("kept"),
                    "left_out": result.get("left_out"),
                    "seconds": round(seconds, 2),
                    "records_per_s": round(args.lines / seconds) if child_args[0] == "read" else None,
                    "peak_rss_mb": round(rss, 1),
                }
            )
        if not args.no_ingest:
            env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}
            where = [word for expression in SELECTIVE for word in ("--where", expression)]
            runs = [
                (f"paperbot ingest --where {' '.join(SELECTIVE)}: reads all, embeds", path, where, args.lines),
                ("paperbot ingest of those records alone (for comparison)", rare, [], None),
            ]
            for n, (name, file, options, lines) in enumerate(runs):
                command = ["-m", "bot", "ingest", str(file), *options, "--json", "--store", str(work / f"store{n}")]
                report, seconds, rss = run_child(command, env)
                rows.append(
                    {
                        "stage": name,
                        "kept": report["added"],
                        "left_out": report["filtered_out"],
                        "seconds": round(seconds, 2),
                        "records_per_s": round(lines / seconds) if lines else None,
                        "peak_rss_mb": round(rss, 1),
                    }
                )
        if args.json:
            print(json.dumps({"lines": args.lines, "file_mb": round(size_mb, 1), "stages": rows}))
        else:
            print(f"synthetic arXiv snapshot: {args.lines:,} lines, {size_mb:,.1f} MB")
            print(f"{'stage':<64} {'kept':>7} {'left out':>9} {'seconds':>8} {'records/s':>10} {'peak RSS':>9}")
            for row in rows:
                kept = "" if row["kept"] is None else f"{row['kept']:,}"
                left = "" if row["left_out"] is None else f"{row['left_out']:,}"
                rate = "" if row["records_per_s"] is None else f"{row['records_per_s']:,}"
                print(
                    f"{row['stage']:<64} {kept:>7} {left:>9} {row['seconds']:>8.2f} {rate:>10} "
                    f"{row['peak_rss_mb']:>7.1f} MB"
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
