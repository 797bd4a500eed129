"""The real `python -m bot serve` whose store folder is replaced, then deleted, while it runs: it never
answers from the papers it read before (it opens the new store, or says to restart), and a deleted
store is said to be deleted. Two small stores of invented abstracts, asked through gradio_client.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
QUESTION = "How are penguins counted in drone images, and what restores medieval manuscripts?"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ask(client: Any, question: str) -> str:
    """The /ask reply, or the message of the error it raised."""
    from gradio_client.exceptions import AppError

    try:
        return str(client.predict(question, api_name="/ask"))
    except AppError as exc:
        return f"error: {exc}"


def test_a_replaced_or_deleted_store_is_never_answered_from_memory(
    tmp_path: Path, settings_for: Any, run_ingest: Any, write_abstracts: Any, small_abstracts: dict[str, str]
) -> None:
    from gradio_client import Client

    papers = list(small_abstracts.items())
    for name, some in (("before", papers[:2]), ("after", papers[2:])):
        source = write_abstracts(tmp_path / f"{name}.txt", [text for _, text in some])
        run_ingest(settings_for(tmp_path / name), [source])
    store, log, port = tmp_path / "store", tmp_path / "server.log", _free_port()
    shutil.copytree(tmp_path / "before", store)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERBOT_", "GRADIO_"))}
    env["PYTHONUNBUFFERED"] = "1"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "bot", "--store", str(store), "serve", "--port", str(port)],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        deadline = time.monotonic() + 120
        while "chat UI running at" not in log.read_text():
            assert process.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        assert "paperbot: 2 papers ready in" in log.read_text()  # read before the first question
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        assert "PenguinCount" in _ask(client, QUESTION)

        # `rm -rf` and a copy of another store in its place, as a restore from a backup would do.
        shutil.rmtree(store)
        shutil.copytree(tmp_path / "after", store)
        reply = _ask(client, QUESTION)
        assert "PenguinCount" not in reply  # the corpus read before is gone from the answers
        reopened = "QuillNet" in reply
        said = "was replaced while the server was running" in reply and "restart `paperbot --store" in reply
        assert reopened or said, reply

        shutil.rmtree(store)
        reply = _ask(client, QUESTION)
        assert "PenguinCount" not in reply and "QuillNet" not in reply
        assert "was deleted while the server was running" in reply, reply
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert "Traceback" not in log.read_text()
