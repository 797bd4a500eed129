"""The `paperbot` command line: ingest, search, ask, serve; JSON output for scripting.

The only place besides the UI that turns errors into messages and exit codes.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bot.errors import FingerprintError, MissingPathError, PaperbotError, QueryError

log = logging.getLogger("paperbot")


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--store",
        type=Path,
        default=argparse.SUPPRESS,
        help="folder of the local store (env PAPERBOT_STORE; default .paperbot/)",
    )
    common.add_argument(
        "--chroma-url",
        default=argparse.SUPPRESS,
        help="use the Chroma server at this URL, e.g. http://127.0.0.1:8000 (env PAPERBOT_CHROMA_URL)",
    )
    common.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS)
    parser = argparse.ArgumentParser(
        prog="paperbot",
        parents=[common],
        description="Ask questions of a corpus of paper abstracts and get cited answers.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ingest = sub.add_parser("ingest", parents=[common], help="add abstract files to the store")
    ingest.add_argument("paths", nargs="*", type=Path, help="files or folders (default: bundled seeds)")
    ingest.add_argument("--json", action="store_true", help="print the summary as JSON")
    ingest.add_argument("--prune", action="store_true", help="remove papers whose sources are gone")
    ingest.add_argument("--rebuild", action="store_true", help="drop the index and embed everything again")
    ingest.add_argument(
        "--skip-bad", action="store_true", help="skip bad records with a warning instead of failing the file"
    )
    ingest.add_argument("--encoding", default="utf-8", help="text encoding of the input files (default utf-8)")

    for name, helptext in (("search", "find the papers about a query"), ("ask", "get a cited answer")):
        cmd = sub.add_parser(name, parents=[common], help=helptext)
        cmd.add_argument("query", nargs="?", help="the query or question")
        cmd.add_argument("--queries", type=Path, help='JSONL file of {"id", "text"} to run as a batch')
        cmd.add_argument("--json", action="store_true", help="print JSON")
        if name == "search":
            cmd.add_argument("--k", type=int, default=None, help="number of papers (default 10)")

    evaluate = sub.add_parser(
        "eval", parents=[common], help="measure retrieval against BM25 and dense search on labelled queries"
    )
    evaluate.add_argument(
        "path", type=Path, help="a BEIR folder (corpus.jsonl, queries.jsonl, qrels/) or a questions .jsonl file"
    )
    evaluate.add_argument("--split", default=None, help="BEIR qrels split (default train)")
    evaluate.add_argument(
        "--eval-store", type=Path, default=None, help="store for a BEIR corpus (default <store>/eval-<folder name>)"
    )
    evaluate.add_argument("--offtopic", type=Path, default=None, help='JSONL of {"id", "question"} that should abstain')
    evaluate.add_argument(
        "--answers", action="store_true", help="also check that answer sentences quote their citations"
    )
    evaluate.add_argument("--rebuild", action="store_true", help="embed a BEIR corpus again (after settings changes)")
    evaluate.add_argument("--limit", type=int, default=None, help="evaluate only the first N queries")
    evaluate.add_argument("--json", action="store_true", help="print JSON")
    evaluate.add_argument("--report", type=Path, default=None, help="also write the table as markdown to this file")

    serve = sub.add_parser("serve", parents=[common], help="start the chat UI")
    serve.add_argument("--host", default=None, help="interface to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default 7860)")
    return parser


def _settings(args: argparse.Namespace) -> Any:
    from bot.settings import Settings

    overrides: dict[str, Any] = {}
    if "store" in args:
        overrides["store"] = args.store
    if "chroma_url" in args:
        overrides["chroma_url"] = args.chroma_url
    return Settings(**overrides)


def _read_queries(path: Path) -> Iterator[tuple[Any, str]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise QueryError(f"{path}: cannot read the queries file ({exc.strerror}); check the path") from exc
    except UnicodeDecodeError as exc:
        raise QueryError(f"{path}: not valid UTF-8; save the queries file as UTF-8") from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QueryError(
                f'{path} line {number}: not valid JSON ({exc.msg}); write {{"id": ..., "text": ...}}'
            ) from exc
        if not isinstance(obj, dict) or not isinstance(obj.get("text"), str) or not obj["text"].strip():
            raise QueryError(
                f'{path} line {number}: needs a non-empty "text" field, like {{"id": "q1", "text": "..."}}'
            )
        yield obj.get("id", number), obj["text"]


def _progress_bar() -> Callable[[int, int], None] | None:
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    bar: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        if "bar" not in bar:
            bar["bar"] = tqdm(total=total, unit="paper", desc="embedding", file=sys.stderr)
        bar["bar"].n = done
        bar["bar"].refresh()
        if done >= total:
            bar["bar"].close()

    return update


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False))


def _run(args: argparse.Namespace) -> int:
    from bot import render
    from bot.app import Paperbot

    settings = _settings(args)
    if args.command == "serve":
        from bot import ui

        ui.serve(Paperbot(settings), host=args.host or settings.ui.host, port=args.port or settings.ui.port)
        return 0
    if args.command == "eval":
        return _eval(args, settings)
    bot = Paperbot(settings)
    if args.command == "ingest":
        report = bot.ingest(
            [p for p in args.paths] or None,
            prune=args.prune,
            rebuild=args.rebuild,
            skip_bad=args.skip_bad,
            encoding=args.encoding,
            progress=_progress_bar(),
        )
        for warning in report.warnings:
            print(f"paperbot: warning: {warning}", file=sys.stderr)
        if args.json:
            _print_json(render.ingest_json(report))
        else:
            print(render.ingest_line(report))
        return 0

    if (args.query is None) == (args.queries is None):
        raise QueryError(f"give either a {'question' if args.command == 'ask' else 'query'} or --queries FILE.jsonl")
    if args.queries is not None:
        batch = list(_read_queries(args.queries))
        texts = [t for _, t in batch]
        if args.command == "search":
            outputs = [render.search_json(r) for r in bot.search_many(texts, args.k)]
        else:
            outputs = [render.answer_json(a) for a in bot.ask_many(texts)]
        for (qid, _), out in zip(batch, outputs, strict=True):
            _print_json({"id": qid, **out})
        return 0
    if args.command == "search":
        result = bot.search(args.query, args.k)
        print(json.dumps(render.search_json(result), ensure_ascii=False) if args.json else render.search_text(result))
    else:
        answer = bot.ask(args.query)
        print(json.dumps(render.answer_json(answer), ensure_ascii=False) if args.json else render.answer_text(answer))
    return 0


def _eval(args: argparse.Namespace, settings: Any) -> int:
    from bot import beir, evaluate
    from bot.app import Paperbot

    path: Path = args.path
    if not path.exists():
        raise MissingPathError(f"{path}: no such file or folder; give a BEIR folder or a questions .jsonl file")
    if args.report is not None and not args.report.parent.is_dir():
        raise QueryError(f"--report {args.report}: no folder {args.report.parent}; create it or choose another path")
    if args.limit is not None and args.limit < 1:
        raise QueryError(f"--limit {args.limit}: give a positive number of queries")
    if path.is_dir():
        if args.offtopic is not None or args.answers:
            raise QueryError("--offtopic and --answers apply to question files; a BEIR folder has neither")
        data = beir.read_beir(path, args.split or "train")
        store = args.eval_store or settings.store / f"eval-{path.resolve().name}"
        # The corpus gets its own embedded store, so it never mixes with the papers of --store.
        bot = Paperbot(settings.model_copy(update={"store": store, "chroma_url": None}))
        try:
            ingested = bot.ingest([data.corpus], prune=True, rebuild=args.rebuild, progress=_progress_bar())
        except FingerprintError as exc:
            raise FingerprintError(
                f"the evaluation store {store} was built with other settings; run `paperbot eval {path} "
                f"--rebuild` to embed the corpus again ({exc})"
            ) from exc
        report = evaluate.evaluate_beir(bot, data, ingested, limit=args.limit)
    else:
        if args.split is not None or args.eval_store is not None or args.rebuild:
            raise QueryError(
                "--split, --eval-store and --rebuild apply to BEIR folders; a question file runs on --store"
            )
        questions = beir.read_questions(path)
        offtopic = beir.read_questions(args.offtopic, offtopic=True) if args.offtopic else []
        report = evaluate.evaluate_questions(Paperbot(settings), questions, offtopic, args.answers, args.limit)
    if args.report is not None:
        try:
            args.report.write_text(report.markdown(), encoding="utf-8")
        except OSError as exc:
            raise QueryError(f"--report {args.report}: cannot write ({exc.strerror}); choose another path") from exc
    print(json.dumps(report.to_json(), ensure_ascii=False) if args.json else report.table())
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `paperbot` console script."""
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING,
        format="paperbot: %(levelname)s: %(message)s",
    )
    for noisy in ("bm25s", "chromadb", "httpx", "sentence_transformers", "transformers"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    try:
        return _run(args)
    except PaperbotError as exc:
        print(f"paperbot: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): nothing left to say, and not an error.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("paperbot: interrupted; what was already written is kept", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
