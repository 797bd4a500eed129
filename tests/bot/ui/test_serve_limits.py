"""The real `python -m bot serve` deployed for a group: every interface, a login, no uploads, and
nothing left in the temporary folder once it stops.

One server per module, on an empty store (nothing here asks a real question, so the seeds are
never loaded) with TMPDIR pointed at a folder of the test's, so every temporary file the server
makes can be found. The tests run in file order: the last one stops the server.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from bot.ui.uploads import REFUSAL

REPO = Path(__file__).resolve().parents[3]
USER, PASSWORD = "ana", "s3cret pass"


@dataclass(frozen=True)
class Guarded:
    url: str
    process: subprocess.Popen[str]
    log: Path
    tmp: Path  # the server's TMPDIR


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Guarded]:
    folder = tmp_path_factory.mktemp("guarded")
    tmp, log = folder / "tmp", folder / "server.log"
    tmp.mkdir()
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERBOT_", "GRADIO_"))}
    env.update(PYTHONUNBUFFERED="1", TMPDIR=str(tmp), PAPERBOT_UI__AUTH=f"{USER}:{PASSWORD},ben:other")
    command = [sys.executable, "-m", "bot", "--store", str(folder / "store"), "serve", "--host", "0.0.0.0"]
    with log.open("w") as out:
        process = subprocess.Popen(
            [*command, "--port", str(port)], cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, text=True
        )
    try:
        deadline = time.monotonic() + 120
        while "chat UI running at" not in log.read_text():
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the server did not start:\n{log.read_text()}")
            time.sleep(0.2)
        yield Guarded(f"http://127.0.0.1:{port}", process, log, tmp)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=15)


@contextmanager
def _logged_in(url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, timeout=30) as client:
        response = client.post("/login", data={"username": USER, "password": PASSWORD})
        assert response.status_code == 200, response.text
        yield client


def test_binding_every_interface_is_warned_about(guarded: Guarded) -> None:
    log = guarded.log.read_text()
    assert "paperbot: warning: --host 0.0.0.0 binds every network interface" in log
    assert "asks for a login" in log and "unencrypted" in log
    assert PASSWORD not in log


def test_the_api_and_the_page_need_a_login(guarded: Guarded) -> None:
    with httpx.Client(base_url=guarded.url, timeout=30) as anonymous:
        refused = anonymous.post("/gradio_api/call/ask", json={"data": ["  "]})
        assert refused.status_code == 401
        assert "Not authenticated" in refused.text
        wrong = anonymous.post("/login", data={"username": USER, "password": "s3cret"})
        assert wrong.status_code == 400
        assert anonymous.get("/config").status_code == 401
    with _logged_in(guarded.url) as client:
        sent = client.post("/gradio_api/call/ask", json={"data": ["  "]})
        assert sent.status_code == 200
        stream = client.get(f"/gradio_api/call/ask/{sent.json()['event_id']}").text
        assert "event: error" in stream  # the empty question's polite refusal, past the login


def test_uploads_are_refused_with_or_without_a_login(guarded: Guarded) -> None:
    payload = b"paperbot-upload-marker" * 50_000  # about 1 MB
    with httpx.Client(base_url=guarded.url, timeout=30) as anonymous:
        response = anonymous.post("/gradio_api/upload", files={"files": ("big.bin", payload)})
        assert response.status_code == 403 and REFUSAL in response.text
    with _logged_in(guarded.url) as client:
        response = client.post("/gradio_api/upload", files={"files": ("big.bin", payload)})
        assert response.status_code == 403 and REFUSAL in response.text
        response = client.post("/gradio_api/process_recording", files={"video": ("v.mp4", payload)})
        assert response.status_code == 403
    written = [p for p in guarded.tmp.rglob("*") if p.is_file() and b"paperbot-upload-marker" in p.read_bytes()]
    assert written == []


def test_stopping_the_server_removes_its_temporary_folder(guarded: Guarded) -> None:
    made = sorted(p.name for p in guarded.tmp.iterdir())
    assert len(made) == 1 and made[0].startswith(f"paperbot-serve-{guarded.process.pid}-")
    assert (guarded.tmp / made[0] / "exports").is_dir()  # the export files are made in it too
    guarded.process.send_signal(signal.SIGTERM)
    assert guarded.process.wait(timeout=30) == 0
    assert list(guarded.tmp.iterdir()) == []


def test_loopback_serves_without_a_warning(server: object) -> None:
    log = server.log.read_text()  # type: ignore[attr-defined]
    assert "chat UI running at http://127.0.0.1:" in log
    assert "paperbot: warning" not in log
