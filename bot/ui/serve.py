"""Serving the chat UI: checks the address (warning when other machines can reach it), builds the
app over the core's callables and runs it (never a public share link) with a bounded queue, no
file uploads, the logins of the UI settings, a temporary folder of its own removed when it stops,
and a core that notices its store folder being replaced (bot.ui.watch). The core is described
structurally (`Core`), so the UI never imports the app; loading the seeds comes as a callable
(`ingest_seeds`), so it never imports ingest.
"""

from __future__ import annotations

import errno
import socket
import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Protocol

from starlette.middleware import Middleware

from bot.errors import PaperbotError
from bot.types import Answer, ReadingList, TriageResult
from bot.ui import access, views
from bot.ui.build import build, quiet_gradio, theme
from bot.ui.css import PAGE_CSS
from bot.ui.scratch import scratch_folder, stopping_on_signals
from bot.ui.seeds import IngestSeeds
from bot.ui.uploads import NoUploads
from bot.ui.watch import WatchedCore

if TYPE_CHECKING:
    from bot.settings import Settings


class Core(Protocol):
    """What `serve` needs of bot.app.Paperbot; structural, so the UI never imports the app."""

    @property
    def settings(self) -> Settings: ...

    def ask(self, question: str, generator: str | None = None, previous: Answer | None = None) -> Answer: ...

    def ask_stream(
        self, question: str, generator: str | None = None, previous: Answer | None = None
    ) -> Iterator[str | Answer]: ...

    def paper_count(self) -> int: ...

    def warm(self) -> int: ...

    def triage(self, topic: str) -> TriageResult: ...

    def reading_list(self, name: str) -> ReadingList: ...

    def list_names(self) -> list[tuple[str, int]]: ...

    def add_to_list(self, name: str, refs: list[str]) -> int: ...

    def remove_from_list(self, name: str, refs: list[str]) -> int: ...

    def export(
        self, fmt: str, list_name: str | None = None, topic: str | None = None, refs: list[str] | None = None
    ) -> str: ...


def library_of(core: Core) -> views.Library:
    """The core's triage, reading-list and export calls as the callables the tabs take."""
    return views.Library(
        triage=core.triage,
        reading_list=core.reading_list,
        list_names=core.list_names,
        add_to_list=core.add_to_list,
        remove_from_list=core.remove_from_list,
        export_papers=lambda fmt, ids: core.export(fmt, refs=ids),
        export_list=lambda fmt, name: core.export(fmt, list_name=name),
    )


def _check_address(host: str, port: int) -> None:
    """Fail early, saying which of host and port is wrong, before Gradio tries (and says less)."""
    if not 1 <= port <= 65535:
        raise PaperbotError(f"--port {port}: give a port from 1 to 65535 (default 7860)")
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][0]
        with socket.create_server((host, port), family=family):  # ::1 and :: are IPv6
            pass
    except OSError as exc:
        if exc.errno is not None and exc.errno < 0:  # the resolver's codes are negative
            raise PaperbotError(f"--host {host}: not a known host name or address; try --host 127.0.0.1") from exc
        if exc.errno == errno.EADDRINUSE:
            why = "the port is in use; pass --port with a free port"
        elif exc.errno == errno.EADDRNOTAVAIL:
            why = "that address is not one of this machine's; pass --host 127.0.0.1 (or 0.0.0.0 for every interface)"
        elif exc.errno == errno.EACCES:
            why = "not allowed (ports below 1024 need root); pass --port 7860 or another above 1023"
        else:
            why = f"{exc.strerror or exc}; pass another --host or --port"
        raise PaperbotError(f"cannot serve the chat UI on {host}:{port}: {why}") from exc


def _warm(core: Core) -> None:
    """Read the store and the model before serving (Core.warm), saying so; a store that cannot be read
    is reported here and again, with what to do, to whoever asks."""
    print("paperbot: reading the store and the embedding model...", flush=True)
    started = time.monotonic()
    try:
        count = core.warm()
    except PaperbotError as exc:
        print(f"paperbot: warning: {exc}", file=sys.stderr, flush=True)
        return
    print(f"paperbot: {count:,} papers ready in {time.monotonic() - started:.1f} s", flush=True)


def serve(
    bot: Core,
    ingest_seeds: IngestSeeds | None,
    host: str = "127.0.0.1",
    port: int = 7860,
    reopen: Callable[[], Core] | None = None,
) -> None:
    """Run the UI on host:port until interrupted (Ctrl+C, SIGTERM or SIGHUP); never creates a public
    share link, and leaves no temporary file behind.

    `ingest_seeds(progress)` fills an empty store with the bundled seeds before the first answer
    (the CLI builds it; None: an empty store stays empty). `reopen()` opens the store again for a
    new core, used when the store folder is replaced while serving (None: the server says to restart).
    Example: serve(app, lambda progress: ingest(app, None, progress=progress), reopen=lambda: open_app(settings))
    """
    ui = bot.settings.ui
    _check_address(host, port)
    known = access.logins(ui)  # a bad login setting stops the server before it serves anyone
    warning = access.exposure(host, port, with_login=bool(known))
    if warning is not None:
        print(f"paperbot: warning: {warning}", file=sys.stderr, flush=True)
    quiet_gradio()
    core = WatchedCore(bot, reopen)
    _warm(core)
    # Gradio reads its cache folder as the app is built: the scratch folder comes first.
    with scratch_folder() as scratch, stopping_on_signals():
        demo = build(
            core.ask,
            ingest_seeds,
            core.paper_count,
            library_of(core),
            exports=scratch / "exports",
            ask_stream=core.ask_stream,
            generator=bot.settings.generator.backend,
            ui=ui,
        )
        try:
            _, local_url, _ = demo.launch(
                server_name=host,
                server_port=port,
                share=False,
                inbrowser=False,
                prevent_thread_lock=True,  # so the URL is printed once the port is bound
                quiet=True,
                ssr_mode=False,  # server-side rendering needs Node; plain serving does not
                mcp_server=False,
                footer_links=["api"],  # gradio_client users find the /ask endpoint here
                theme=theme(),
                css=PAGE_CSS,
                auth=access.checker(known) if known else None,
                auth_message="paperbot: log in with a user and password of PAPERBOT_UI__AUTH or its users file",
                app_kwargs={"middleware": [Middleware(NoUploads)]},
                max_file_size=0,  # should a route slip past NoUploads, it still takes no file with a byte in it
                run_history=False,  # no page of past calls, and no connecting a Hugging Face bucket to keep them
            )
        except OSError as exc:
            # Gradio's own message suggests GRADIO_SERVER_PORT; paperbot users pass --port.
            raise PaperbotError(
                f"cannot serve the chat UI on {host}:{port}: the port is in use or not allowed; "
                "pass --port with a free port"
            ) from exc
        try:
            print(f"paperbot: chat UI running at {local_url} (Ctrl+C to stop)", flush=True)
            demo.block_thread()
        finally:
            demo.close(verbose=False)  # stops the queue and frees the port before the folder goes
