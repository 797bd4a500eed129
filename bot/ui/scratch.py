"""The chat server's own temporary folder: Gradio's file cache and the export files live in it, and
it is removed when the server stops (Ctrl+C, SIGTERM, SIGHUP or a normal return). No gradio here.

Gradio keeps its cache in GRADIO_TEMP_DIR (default /tmp/gradio, shared by every Gradio process and
never emptied); it reads the variable as its components are built, so `scratch_folder` sets it
first. A SIGKILL leaves the folder behind: its name says which process made it.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

log = logging.getLogger(__name__)

GRADIO_TEMP = "GRADIO_TEMP_DIR"
PREFIX = "paperbot-serve-"


def _stop(signum: int, frame: FrameType | None) -> None:
    # Gradio's block_thread stops the server on KeyboardInterrupt, and `finally` blocks then run.
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def stopping_on_signals() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into KeyboardInterrupt meanwhile, as Ctrl+C is, so that cleanup runs;
    only in the main thread (elsewhere Python cannot set handlers, and nothing is changed)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = [s for s in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None]
    before = {s: signal.signal(s, _stop) for s in wanted}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


@contextmanager
def scratch_folder(parent: Path | None = None) -> Iterator[Path]:
    """A new folder for this server's temporary files, Gradio's cache pointed into it; removed, and
    the variable restored, on the way out.

    Example: with scratch_folder() as folder: ... -> /tmp/paperbot-serve-4242-x1y2z3, gone afterwards
    """
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=parent))
    before = os.environ.get(GRADIO_TEMP)
    os.environ[GRADIO_TEMP] = str(folder / "gradio")
    try:
        yield folder
    finally:
        if before is None:
            os.environ.pop(GRADIO_TEMP, None)
        else:
            os.environ[GRADIO_TEMP] = before
        shutil.rmtree(folder, ignore_errors=True)
        if folder.exists():
            log.warning("could not remove the server's temporary folder %s; delete it by hand", folder)
