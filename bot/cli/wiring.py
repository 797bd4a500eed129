"""The command line's only calls that build or open the core: settings, the app, an ingest, an
evaluation, the chat server.

Every way the CLI constructs or feeds the core goes through here, so a change in how the app is
opened or how ingest is called is made in this one module. Heavy libraries (torch, chromadb,
gradio) are imported inside the functions, so `paperbot --help` never loads them. It prints
nothing and parses no arguments.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.errors import StoreError

if TYPE_CHECKING:
    # The app the commands are handed; they name its type only through here.
    from bot.app import Paperbot as App
    from bot.eval.data import BeirSplit, Question
    from bot.eval.report import EvalReport
    from bot.progress import Progress
    from bot.settings import Settings
    from bot.types import IngestReport, Paper, SentenceReport


def load_settings(store: Path | None, chroma_url: str | None) -> Settings:
    """The settings from the PAPERBOT_* environment, with the global options given on the line on top."""
    from bot.cli.output import print_warnings
    from bot.settings import load_settings as load
    from bot.settings import unknown_variables

    print_warnings(unknown_variables(os.environ))
    overrides: dict[str, Any] = {}
    if store is not None:
        overrides["store"] = store
    if chroma_url is not None:
        overrides["chroma_url"] = chroma_url
    settings = load(**overrides)
    if settings.store.exists() and not settings.store.is_dir():
        raise StoreError(
            f"the store {settings.store} is a file, not a folder; give --store (or PAPERBOT_STORE) the folder that "
            "holds the store, or a new one to make"
        )
    return settings


def require_store(settings: Settings) -> None:
    """Refuse a store folder that does not exist or holds no store, for commands that only read one (they
    write nothing there); a client of a Chroma server needs none (the server holds the papers; the folder
    is made for its local copies).

    Example: no .paperbot/ here -> "no store at .paperbot: ...; run `paperbot ingest` first ..."
    """
    from bot.store import StorePaths

    paths = StorePaths(settings.store)
    registry = paths.registry
    # a store, or one its first ingest is making (the store says so: "still empty: an ingest ... is filling it")
    if settings.chroma_url is not None or registry.is_file() or paths.lock.exists() or paths.chroma.is_dir():
        return
    # A folder without a registry is not opened: reading it would leave a store's files in it.
    if settings.store.is_dir() and any(settings.store.iterdir()):
        raise StoreError(
            f"{settings.store} holds no paperbot store (no {registry.name} in it); check --store (or "
            "PAPERBOT_STORE), or run `paperbot ingest` with it to make one there"
        )
    # A mistyped --store must not leave an empty store behind, nor say only "the store is empty".
    if settings.store == type(settings).model_fields["store"].default:
        raise StoreError(
            f"no store at {settings.store}: nothing was ingested in this folder yet; run `paperbot ingest` "
            "first to load the bundled seed abstracts (or `paperbot ingest FILES` for your own), "
            "or give the store's folder with --store DIR"
        )
    raise StoreError(
        f"no store at {settings.store}: nothing was ingested there; check --store (or PAPERBOT_STORE), "
        f"or run `paperbot --store {shlex.quote(str(settings.store))} ingest` first "
        "(the bundled seeds; or add FILES for your own)"
    )


def open_app(settings: Settings) -> App:
    """The app over the store `settings` name; its embedding model loads on first need."""
    from bot.app import Paperbot

    return Paperbot(settings)


def stored_papers(app: App) -> Mapping[str, Paper]:
    """Every paper in the app's store by paper_id (for resolving the citations of a --history file)."""
    return app.papers()


def ingest(
    app: App,
    paths: list[Path] | None,
    *,
    prune: bool = False,
    rebuild: bool = False,
    skip_bad: bool = False,
    encoding: str = "utf-8",
    progress: Progress | None = None,
    follow_symlinks: bool = False,
    where: Sequence[str] = (),
    say: Callable[[str], None] | None = None,
) -> IngestReport:
    """Add `paths` (None: the bundled seeds) to the app's store; progress on stderr unless `progress` is given.

    Only the records meeting every `where` expression are kept (check them first with `check_where`);
    `say` takes lines of progress while a large JSON-lines file is read. The CLI is the only part of
    bot that imports ingest: the app and the UI never do.
    """
    from bot.progress import reporter
    from ingest import pipeline

    return pipeline.run(
        paths or [app.settings.seeds],
        app.settings,
        app.store,
        ingest_model(app),
        prune=prune,
        rebuild=rebuild,
        skip_bad=skip_bad,
        encoding=encoding,
        progress=progress or reporter(),
        follow_symlinks=follow_symlinks,
        where=pipeline.RecordFilter(where) if where else None,
        say=say,
    )


def ingest_model(app: App) -> Callable[[list[str]], Any]:
    """What an ingest embeds chunks with: the model itself (thousands of chunks would only churn the cache of
    recent vectors), in the store's precision; a new store with precision 'auto' is first given the one this
    machine embeds faster (about two seconds of timing, bot.embedder.Embedder.faster_precision)."""
    from functools import partial

    app.store.build_in(app.embedder.faster_precision)  # timed only for a new store with precision 'auto'
    return partial(app.embedder.fresh, precision=app.store.embed.resolved_precision())


def keep_sentences(app: App, progress: Progress | None = None) -> SentenceReport:
    """`ingest --sentences`: embed and keep every stored abstract's sentences that have no kept vector yet
    (ingest.sentences); progress on stderr unless `progress` is given."""
    from bot.progress import reporter
    from ingest import sentences

    return sentences.keep(
        app.papers(), app.store.sentences(), app.embedder.exact, progress or reporter(what="sentences")
    )


def check_where(expressions: Sequence[str]) -> None:
    """Raise ValueError, saying what is wrong and which fields there are, for the first `ingest --where`
    expression that cannot be read.

    Example: check_where(["yaer>=2023"]) -> ValueError("--where 'yaer>=2023': no field 'yaer'; the fields are ...")
    """
    from ingest import pipeline

    pipeline.RecordFilter(expressions)


def open_eval_app(settings: Settings, store: Path) -> App:
    """An app over an embedded store of its own for a BEIR corpus, so it never mixes with --store."""
    return open_app(settings.model_copy(update={"store": store, "chroma_url": None}))


def evaluate_beir(app: App, data: BeirSplit, ingested: IngestReport, limit: int | None) -> EvalReport:
    """Retrieval measured on a BEIR corpus already ingested into `app`'s store."""
    from bot.eval.beir import evaluate_beir as evaluate

    return evaluate(app.searcher, data, ingested, limit=limit)


def evaluate_questions(
    settings: Settings,
    questions: list[Question],
    offtopic: list[Question],
    answers: bool,
    limit: int | None,
    judgments: Mapping[str, Mapping[str, bool]] | None,
) -> EvalReport:
    """Retrieval (and answers) measured on labelled questions over the store of `settings`."""
    from bot.eval.questions import evaluate_questions as evaluate

    app = open_app(settings)
    return evaluate(app.searcher, app.ask_many, questions, offtopic, answers, limit, judgments)


def serve(settings: Settings, host: str, port: int) -> None:
    """Run the chat UI over the store of `settings` until interrupted."""
    from bot.ui.serve import serve as run

    app = open_app(settings)
    run(app, lambda progress: ingest(app, None, progress=progress), host=host, port=port)
