"""One real `python -m bot serve` per test session, on loopback, a free port and an empty store.

Shared by the HTTP tests (test_server.py) and the browser test (test_browser.py) so the seeds
are embedded once: the store starts empty and the server loads the bundled seeds itself.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class Server:
    url: str
    port: int
    process: subprocess.Popen[str]
    log: Path
    store: Path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_up(server: Server, timeout: float = 120) -> None:
    """Wait for the printed URL (printed once launch returns), then for a page."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log = server.log.read_text()
        if server.process.poll() is not None:
            pytest.fail(f"server exited with {server.process.returncode}:\n{log}")
        if "chat UI running at" in log:
            try:
                with urllib.request.urlopen(server.url, timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
        time.sleep(0.5)
    pytest.fail(f"server did not answer within {timeout} s:\n{server.log.read_text()}")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A running `python -m bot serve --port N --store EMPTY` (default host), stopped at the end."""
    folder = tmp_path_factory.mktemp("ui-server")
    store, log = folder / "store", folder / "server.log"
    assert not store.exists()  # empty: the server must load the seeds itself
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERBOT_", "GRADIO_"))}
    env["PYTHONUNBUFFERED"] = "1"
    # An openai endpoint nobody listens on: the browser test picks that model and must see it fail.
    env["PAPERBOT_GENERATOR__BASE_URL"] = f"http://127.0.0.1:{_free_port()}/v1"
    with log.open("w") as out:
        # No --host: the default binding is what is checked.
        process = subprocess.Popen(
            [sys.executable, "-m", "bot", "serve", "--port", str(port), "--store", str(store)],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    running = Server(f"http://127.0.0.1:{port}/", port, process, log, store)
    try:
        _wait_until_up(running)
        yield running
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
