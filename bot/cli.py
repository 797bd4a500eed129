"""The `paperbot` command line: ingest, search, ask, serve, triage, lists, export; JSON for scripting.

The only place besides the UI that turns errors into messages and exit codes.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bot import progress
from bot.errors import FingerprintError, MissingPathError, PaperbotError, QueryError, StoreError
from bot.text import jsonl

log = logging.getLogger("paperbot")
# Commands that only read a store: they never create one ("serve" fills an empty store with the seeds).
_READERS = {"search", "ask", "chat", "triage", "similar", "list", "export"}


_HISTORY_HELP = (
    "earlier turns for follow-up questions: a JSON list (or JSON lines) of `ask --json` outputs, "
    'oldest first, or of {"question": ..., "answer": <ask --json output>}; the last one is followed up'
)


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
    common.add_argument(
        "-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="also log each step with its timing"
    )
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
        else:
            cmd.add_argument(
                "--generator",
                choices=["extractive", "openai", "llamacpp"],
                default=None,
                help="who writes the answer: the extractive composer (default), an OpenAI-compatible endpoint "
                "or a local GGUF model (env PAPERBOT_GENERATOR__BACKEND; needs the llm extra)",
            )
            cmd.add_argument("--history", type=Path, default=None, help=_HISTORY_HELP)

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
        "--answers",
        action="store_true",
        help="also answer each question and report the share of answer sentences their citations support",
    )
    evaluate.add_argument(
        "--judged",
        type=Path,
        default=None,
        help='JSONL of {"question", "id", "relevant"}: papers judged for a question beyond its labels '
        '(adds the column "judged hit@1")',
    )
    evaluate.add_argument("--limit", type=int, default=None, help="evaluate only the first N queries")
    evaluate.add_argument("--json", action="store_true", help="print JSON")
    evaluate.add_argument("--report", type=Path, default=None, help="also write the table as markdown to this file")

    chat = sub.add_parser(
        "chat",
        parents=[common],
        help="an interactive session: ask, then follow up ('compare [1] and [3]'); quit or Ctrl+D ends it",
    )
    chat.add_argument("--history", type=Path, default=None, help=_HISTORY_HELP)
    chat.add_argument("--json", action="store_true", help="print each answer as one `ask --json` line")

    serve = sub.add_parser("serve", parents=[common], help="start the chat UI")
    serve.add_argument("--host", default=None, help="interface to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default 7860)")
    _library_parsers(sub, common)
    return parser


def _library_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """triage, similar, list and export: whole-corpus relevance, more like this, reading lists."""
    triage = sub.add_parser("triage", parents=[common], help="find every paper about a topic, grouped into themes")
    triage.add_argument("topic", help='the topic, e.g. "safe reinforcement learning"')
    triage.add_argument("--json", action="store_true", help="print JSON")

    similar = sub.add_parser("similar", parents=[common], help="papers like a stored paper or a pasted abstract")
    similar.add_argument(
        "paper", nargs="?", help="a stored paper: its paper_id, an id prefix (6+ characters), label, title or source id"
    )
    similar.add_argument("--text", help="an abstract to compare instead of a stored paper ('-' reads stdin)")
    similar.add_argument("--k", type=int, default=None, help="number of papers (default 10)")
    similar.add_argument("--json", action="store_true", help="print JSON")

    lists = sub.add_parser(
        "list",
        parents=[common],
        help="show and edit reading lists kept in the store",
        description="Reading lists kept in the store. With no ACTION, shows every list and its size.",
    )
    lists.add_argument("--json", action="store_true", help="print JSON")
    actions = lists.add_subparsers(dest="list_command", metavar="ACTION")
    show = actions.add_parser("show", parents=[common], help="the papers of a list")
    show.add_argument("name")
    add = actions.add_parser("add", parents=[common], help="add papers to a list (created if new)")
    add.add_argument("name")
    add.add_argument("papers", nargs="*", help="paper_ids, labels or source ids")
    add.add_argument("--topic", help="also add every paper `paperbot triage TOPIC` finds")
    remove = actions.add_parser("remove", parents=[common], help="take papers off a list")
    remove.add_argument("name")
    remove.add_argument("papers", nargs="+", help="paper_ids or labels")
    delete = actions.add_parser("delete", parents=[common], help="delete a list (its papers stay in the store)")
    delete.add_argument("name")
    for action in (show, add, remove, delete):
        action.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")

    export = sub.add_parser("export", parents=[common], help="write papers as BibTeX, RIS, CSV or Markdown")
    source = export.add_mutually_exclusive_group(required=True)
    source.add_argument("--list", dest="list_name", help="the papers of this reading list")
    source.add_argument("--topic", help="the papers `paperbot triage TOPIC` finds")
    source.add_argument("--papers", help="comma-separated paper_ids or labels")
    export.add_argument("--format", required=True, choices=["bibtex", "ris", "csv", "markdown"], help="output format")
    export.add_argument("-o", "--output", type=Path, default=None, help="write to this file (default: print)")


def _settings(args: argparse.Namespace) -> Any:
    from bot.settings import load_settings

    overrides: dict[str, Any] = {}
    if "store" in args:
        overrides["store"] = args.store
    if "chroma_url" in args:
        overrides["chroma_url"] = args.chroma_url
    return load_settings(**overrides)


def _read_queries(path: Path) -> Iterator[tuple[Any, str]]:
    for number, obj in jsonl.read(path, QueryError, 'write {"id": ..., "text": ...}'):
        if not isinstance(obj, dict) or not isinstance(obj.get("text"), str) or not obj["text"].strip():
            raise QueryError(
                f'{path} line {number}: needs a non-empty "text" field, like {{"id": "q1", "text": "..."}}'
            )
        yield obj.get("id", number), obj["text"]


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False))


def _run(args: argparse.Namespace) -> int:
    from bot.app import Paperbot
    from bot.render.json import answer_json, ingest_json, search_json
    from bot.render.text import answer_text, ingest_line, search_text

    settings = _settings(args)
    reads = args.command in _READERS or (args.command == "eval" and args.path.is_file())
    if reads and not settings.store.is_dir():
        # A mistyped --store must not leave an empty store behind, nor say only "the store is empty".
        raise StoreError(
            f"no store at {settings.store}: nothing was ingested there; check --store (or PAPERBOT_STORE), "
            f"or run `paperbot --store {settings.store} ingest FILES` first (no FILES: the bundled seeds)"
        )
    if args.command == "serve":
        from bot.ui.serve import serve

        port = args.port if args.port is not None else settings.ui.port
        bot = Paperbot(settings)
        serve(bot, _ingest_seeds(bot), host=args.host or settings.ui.host, port=port)
        return 0
    if args.command == "eval":
        return _eval(args, settings)
    if args.command in ("triage", "similar", "list", "export"):
        return _library(args, settings)
    bot = Paperbot(settings)
    if args.command == "ingest":
        report = _ingest(
            bot,
            [p for p in args.paths] or None,
            prune=args.prune,
            rebuild=args.rebuild,
            skip_bad=args.skip_bad,
            encoding=args.encoding,
            progress=progress.reporter(),
        )
        for warning in report.warnings:
            print(f"paperbot: warning: {warning}", file=sys.stderr)
        if args.json:
            _print_json(ingest_json(report))
        else:
            print(ingest_line(report))
        return 0

    if args.command == "chat":
        return _chat(args, bot)
    previous = _previous(args.history, bot) if args.command == "ask" else None
    if (args.query is None) == (args.queries is None):
        raise QueryError(f"give either a {'question' if args.command == 'ask' else 'query'} or --queries FILE.jsonl")
    if args.queries is not None:
        batch = list(_read_queries(args.queries))
        texts = [t for _, t in batch]
        if args.command == "search":
            outputs = [search_json(r) for r in bot.search_many(texts, args.k)]
        else:
            answers = bot.ask_many(texts, args.generator, previous)
            _print_notices(answers)
            outputs = [answer_json(a) for a in answers]
        for (qid, _), out in zip(batch, outputs, strict=True):
            _print_json({"id": qid, **out})
        return 0
    if args.command == "search":
        result = bot.search(args.query, args.k)
        print(json.dumps(search_json(result), ensure_ascii=False) if args.json else search_text(result))
    else:
        answer = bot.ask(args.query, args.generator, previous)
        _print_notices([answer])
        print(json.dumps(answer_json(answer), ensure_ascii=False) if args.json else answer_text(answer))
    return 0


def _previous(path: Path | None, bot: Any) -> Any:
    """The last answer of a --history file, for follow-up questions (None without one)."""
    from bot.search import followup

    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise QueryError(f"--history {path}: cannot read ({exc.strerror}); check the path") from exc
    except UnicodeDecodeError as exc:
        raise QueryError(f"--history {path}: not valid UTF-8; save the history file as UTF-8") from exc
    try:
        data = json.loads(text) if text.strip() else []
        turns = data if isinstance(data, list) else [data]
    except json.JSONDecodeError:
        try:  # JSON lines, as `paperbot ask --json >> history.jsonl` writes them
            turns = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise QueryError(
                f"--history {path}: not JSON ({exc.msg}); give a list of `ask --json` outputs or one per line"
            ) from exc
    if not turns:
        raise QueryError(
            f"--history {path}: holds no earlier turn; give a list of `ask --json` outputs, or leave it out"
        )
    try:
        return followup.previous_answer(turns, bot.papers())
    except QueryError as exc:
        raise QueryError(f"--history {path}: {exc}") from exc


def _chat(args: argparse.Namespace, bot: Any) -> int:
    """Read questions from stdin, one a line, answering each as a follow-up of the one before."""
    from bot.render.json import answer_json
    from bot.render.text import answer_text

    previous = _previous(args.history, bot)
    interactive = sys.stdin.isatty()
    if interactive:
        print("Ask about the abstracts; follow up with 'compare [1] and [2]', 'tell me more about [3]'. quit ends.")
    while True:
        if interactive:
            print("> ", end="", flush=True)
        line = sys.stdin.readline()
        if not line or line.strip().lower() in ("quit", "exit", ":q"):
            return 0
        if not line.strip():
            continue
        try:
            answer = bot.ask(line.strip(), None, previous)
        except QueryError as exc:  # a bad question ends the turn, not the session
            print(f"paperbot: error: {exc}", file=sys.stderr)
            continue
        _print_notices([answer])
        if args.json:
            _print_json(answer_json(answer))
        else:
            print(answer_text(answer) + "\n", flush=True)
        previous = answer


def _print_notices(answers: list[Any]) -> None:
    """A requested language model that did not answer is said on stderr, whatever the output format."""
    for notice in dict.fromkeys(a.notice for a in answers if a.notice):
        print(f"paperbot: notice: {notice}", file=sys.stderr)


def _eval(args: argparse.Namespace, settings: Any) -> int:
    from bot.app import Paperbot
    from bot.eval import data as beir
    from bot.eval.beir import evaluate_beir
    from bot.eval.questions import evaluate_questions

    path: Path = args.path
    if not path.exists():
        raise MissingPathError(f"{path}: no such file or folder; give a BEIR folder or a questions .jsonl file")
    if args.report is not None and not args.report.parent.is_dir():
        raise QueryError(f"--report {args.report}: no folder {args.report.parent}; create it or choose another path")
    if args.limit is not None and args.limit < 1:
        raise QueryError(f"--limit {args.limit}: give a positive number of queries")
    if path.is_dir():
        if args.offtopic is not None or args.answers or args.judged is not None:
            raise QueryError(
                "--offtopic, --answers and --judged apply to question files; a BEIR folder has its own qrels"
            )
        data = beir.read_beir(path, args.split or "train")
        store = args.eval_store or settings.store / f"eval-{path.resolve().name}"
        try:
            # The corpus gets its own embedded store, so it never mixes with the papers of --store.
            bot = Paperbot(settings.model_copy(update={"store": store, "chroma_url": None}))
            ingested = _ingest(bot, [data.corpus], prune=True, progress=progress.reporter())
        except FingerprintError as exc:
            raise FingerprintError(
                f"the evaluation store {store} was built with other embedding or chunk settings; it holds "
                f"only {data.corpus}, so delete it (rm -r {store}) and run `paperbot eval` again to "
                "re-embed the corpus, or pass --eval-store DIR"
            ) from exc
        report = evaluate_beir(bot.searcher, data, ingested, limit=args.limit)
    else:
        if args.split is not None or args.eval_store is not None:
            raise QueryError("--split and --eval-store apply to BEIR folders; a question file runs on --store")
        questions = beir.read_questions(path)
        offtopic = beir.read_questions(args.offtopic, offtopic=True) if args.offtopic else []
        judgments = beir.read_judgments(args.judged) if args.judged else None
        bot = Paperbot(settings)
        report = evaluate_questions(
            bot.searcher, bot.ask_many, questions, offtopic, args.answers, args.limit, judgments
        )
    if args.report is not None:
        try:
            args.report.write_text(report.markdown(), encoding="utf-8")
        except OSError as exc:
            raise QueryError(f"--report {args.report}: cannot write ({exc.strerror}); choose another path") from exc
    print(json.dumps(report.to_json(), ensure_ascii=False) if args.json else report.table())
    return 0


def _library(args: argparse.Namespace, settings: Any) -> int:
    """triage, similar, list and export."""
    from bot.app import Paperbot
    from bot.render.json import similar_json, triage_json
    from bot.render.text import similar_text, triage_text

    bot = Paperbot(settings)
    if args.command == "triage":
        result = bot.triage(args.topic)
        print(json.dumps(triage_json(result), ensure_ascii=False) if args.json else triage_text(result))
        return 0
    if args.command == "similar":
        text = sys.stdin.read() if args.text == "-" else args.text
        found = bot.similar(args.paper, text, args.k)
        print(json.dumps(similar_json(found), ensure_ascii=False) if args.json else similar_text(found))
        return 0
    if args.command == "export":
        refs = [r for r in args.papers.split(",") if r.strip()] if args.papers is not None else None
        if refs is not None and not refs:
            raise QueryError("--papers needs at least one paper_id or label, e.g. --papers Cal-SPI,p041add1ca86b")
        text = bot.export(args.format, list_name=args.list_name, topic=args.topic, refs=refs)
        if args.output is None:
            sys.stdout.write(text)
            return 0
        try:
            # newline="" keeps the CRLF line ends that RIS and CSV call for
            with args.output.open("w", encoding="utf-8", newline="") as out:
                out.write(text)
        except OSError as exc:
            raise QueryError(f"-o {args.output}: cannot write ({exc.strerror}); choose another path") from exc
        print(f"wrote {args.output} ({args.format})", file=sys.stderr)
        return 0
    return _list_command(args, bot)


def _list_command(args: argparse.Namespace, bot: Any) -> int:
    """`paperbot list [show|add|remove|delete] ...`"""
    from bot.render.json import reading_list_json
    from bot.render.text import list_names_text, reading_list_text

    action = args.list_command
    if action is None:
        names = bot.reading_lists().names()
        out: Any = {"lists": [{"name": n, "papers": c} for n, c in names]} if args.json else None
        print(json.dumps(out, ensure_ascii=False) if args.json else list_names_text(names))
        return 0
    if action == "delete":
        bot.reading_lists().delete(args.name)
        print(json.dumps({"name": args.name, "deleted": True}) if args.json else f"deleted the list {args.name!r}")
        return 0
    changed = 0
    if action == "add":
        refs = list(args.papers)
        if args.topic:
            refs += [p.paper.paper_id for p in bot.triage(args.topic).papers]
        if not refs:
            raise QueryError("name papers to add, or --topic TOPIC to add a triage's papers")
        changed = bot.add_to_list(args.name, refs)
    elif action == "remove":
        changed = bot.remove_from_list(args.name, list(args.papers))
    reading = bot.reading_list(args.name.strip())
    if args.json:
        data = reading_list_json(reading)
        if action != "show":
            data["added" if action == "add" else "removed"] = changed
        print(json.dumps(data, ensure_ascii=False))
    else:
        if action != "show":
            verb = "added" if action == "add" else "removed"
            print(f"{verb} {changed} paper{'s' if changed != 1 else ''}")
        print(reading_list_text(reading))
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


# --- Ingest wiring: the CLI is the only part of bot that imports ingest ---


def _ingest(
    bot: Any,
    paths: list[Path] | None = None,
    *,
    prune: bool = False,
    rebuild: bool = False,
    skip_bad: bool = False,
    encoding: str = "utf-8",
    progress: Any = None,
) -> Any:
    """Run the ingest pipeline into `bot`'s store: `paths`, or by default the bundled seeds."""
    from ingest import pipeline

    return pipeline.run(
        paths or [bot.settings.seeds],
        bot.settings,
        bot.store,
        bot.embedder.fresh,  # straight from the model: thousands of chunks would only churn the cache
        prune=prune,
        rebuild=rebuild,
        skip_bad=skip_bad,
        encoding=encoding,
        progress=progress,
    )


def _ingest_seeds(bot: Any) -> Any:
    """The UI's `ingest_seeds(progress)`: the bundled seeds into `bot`'s store."""
    return lambda progress: _ingest(bot, progress=progress)


if __name__ == "__main__":
    sys.exit(main())
