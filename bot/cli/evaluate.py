"""`paperbot eval`: retrieval (and answers) measured on a BEIR folder or a file of labelled questions.

Checks the options against the kind of data given, reads the data and prints or writes the
report; the measuring is bot.eval's, reached through bot.cli.wiring. It decides no metric.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from bot.cli import parsing, wiring
from bot.errors import FingerprintError, MissingPathError, QueryError


@click.command(
    "eval", cls=parsing.Command, short_help="measure retrieval against BM25 and dense search on labelled queries"
)
@parsing.argument(
    "path", "a BEIR folder (corpus.jsonl, queries.jsonl, qrels/) or a questions .jsonl file", type=parsing.PATH
)
@click.option("--split", default=None, metavar="NAME", help="BEIR qrels split (default train)")
@click.option(
    "--eval-store",
    type=parsing.PATH,
    default=None,
    metavar="DIR",
    help="store for a BEIR corpus (default <store>/eval-<folder name>)",
)
@click.option(
    "--offtopic",
    type=parsing.PATH,
    default=None,
    metavar="FILE",
    help='JSONL of {"id", "question"} that should abstain',
)
@click.option(
    "--answers",
    is_flag=True,
    help="also answer each question and report the share of answer sentences their citations support",
)
@click.option(
    "--judged",
    type=parsing.PATH,
    default=None,
    metavar="FILE",
    help='JSONL of {"question", "id", "relevant"}: papers judged for a question beyond its labels '
    '(adds the column "judged hit@1")',
)
@click.option("--limit", type=int, default=None, metavar="N", help="evaluate only the first N queries")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.option(
    "--report", type=parsing.PATH, default=None, metavar="FILE", help="also write the table as markdown to this file"
)
@click.pass_context
def evaluate(
    ctx: click.Context,
    path: Path,
    split: str | None,
    eval_store: Path | None,
    offtopic: Path | None,
    answers: bool,
    judged: Path | None,
    limit: int | None,
    as_json: bool,
    report: Path | None,
) -> int:
    """Measure retrieval against BM25 and dense search: nDCG@10, Recall@100 and MRR@10 on a BEIR
    folder (ingested into a store of its own), or hit@1, hit@5, MRR@10 and abstention on a
    questions file over --store."""
    from bot.eval import data as beir

    options = parsing.given(ctx)
    settings = wiring.load_settings(options.store, options.chroma_url)
    if path.is_file():  # a question file runs on --store, which must exist
        wiring.require_store(settings)
    if not path.exists():
        raise MissingPathError(f"{path}: no such file or folder; give a BEIR folder or a questions .jsonl file")
    if report is not None and not report.parent.is_dir():
        raise QueryError(f"--report {report}: no folder {report.parent}; create it or choose another path")
    if limit is not None and limit < 1:
        raise QueryError(f"--limit {limit}: give a positive number of queries")
    if path.is_dir():
        if offtopic is not None or answers or judged is not None:
            raise QueryError(
                "--offtopic, --answers and --judged apply to question files; a BEIR folder has its own qrels"
            )
        data = beir.read_beir(path, split or "train")
        store = eval_store or settings.store / f"eval-{path.resolve().name}"
        try:
            app = wiring.open_eval_app(settings, store)
            ingested = wiring.ingest(app, [data.corpus], prune=True)
        except FingerprintError as exc:
            raise FingerprintError(
                f"the evaluation store {store} was built with other embedding or chunk settings; it holds "
                f"only {data.corpus}, so delete it (rm -r {store}) and run `paperbot eval` again to "
                "re-embed the corpus, or pass --eval-store DIR"
            ) from exc
        result = wiring.evaluate_beir(app, data, ingested, limit)
    else:
        if split is not None or eval_store is not None:
            raise QueryError("--split and --eval-store apply to BEIR folders; a question file runs on --store")
        questions = beir.read_questions(path)
        offtopic_questions = beir.read_questions(offtopic, offtopic=True) if offtopic else []
        judgments = beir.read_judgments(judged) if judged else None
        result = wiring.evaluate_questions(settings, questions, offtopic_questions, answers, limit, judgments)
    if report is not None:
        try:
            report.write_text(result.markdown(), encoding="utf-8")
        except OSError as exc:
            raise QueryError(f"--report {report}: cannot write ({exc.strerror}); choose another path") from exc
    print(json.dumps(result.to_json(), ensure_ascii=False) if as_json else result.table())
    return 0
