"""The real chat server: `python -m bot serve` on an empty store, asked through gradio_client.

The store starts empty, so the first question waits for the server's own seed load (~20-40 s
here). The browser test runs only where Playwright and Debian's chromium are installed.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot import render

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
QUESTION = "How can reinforcement learning enforce safety constraints at every state?"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@dataclass(frozen=True)
class Server:
    url: str
    port: int
    process: subprocess.Popen[str]
    log: Path


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


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("ui-server")
    store, log = folder / "store", folder / "server.log"
    assert not store.exists()  # empty: the server must load the seeds itself
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERBOT_", "GRADIO_"))}
    env["PYTHONUNBUFFERED"] = "1"
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
    running = Server(f"http://127.0.0.1:{port}/", port, process, log)
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


@pytest.fixture(scope="module")
def client(server: Server) -> Any:
    from gradio_client import Client

    return Client(server.url, verbose=False)


def _listening_addresses(port: int) -> set[str]:
    """Local IPv4/IPv6 addresses with a socket listening on `port`, from /proc/net."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            address, port_hex = fields[1].split(":")
            if int(port_hex, 16) == port and fields[3] == "0A":  # 0A = LISTEN
                if len(address) == 8:  # IPv4, little-endian hex
                    found.add(socket.inet_ntoa(bytes.fromhex(address)[::-1]))
                else:
                    found.add(address)
    return found


def _text(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, list):  # Gradio 6 returns content as typed parts
        return " ".join(part.get("text", "") for part in content)
    return str(content)


def test_server_binds_loopback_and_prints_its_url(server: Server) -> None:
    assert f"chat UI running at http://127.0.0.1:{server.port}/" in server.log.read_text()
    if not os.path.exists("/proc/net/tcp"):
        pytest.skip("no /proc/net/tcp to read listening sockets from")
    assert _listening_addresses(server.port) == {"127.0.0.1"}


def test_ask_endpoint_answers_from_the_seeds_it_loaded_itself(client: Any) -> None:
    markdown = client.predict(QUESTION, api_name="/ask")
    assert "[1]" in markdown
    assert "ASCPO" in markdown
    assert re.search(r"^\[1\] \*\*ASCPO\*\*$", markdown, re.MULTILINE)  # the reference list


def test_chat_endpoint_returns_the_conversation_panel_and_status(client: Any) -> None:
    history, box, panel, status = client.predict(QUESTION, [], api_name="/chat")
    assert [m["role"] for m in history] == ["user", "assistant"]
    assert _text(history[0]) == QUESTION
    assert "[1]" in _text(history[1]) and "ASCPO" in _text(history[1])
    assert box == ""  # the input is cleared for the next question
    assert "[1] ASCPO" in panel and "<mark>" in panel
    assert re.match(r"\*\*\d+\*\* papers in the store\.", status)

    # A follow-up keeps the conversation; an empty one gets the polite reply.
    history, _, _, _ = client.predict("   ", history, api_name="/chat")
    assert len(history) == 3
    assert _text(history[-1]) == render.EMPTY_QUESTION_REPLY


def test_ask_endpoint_rejects_an_empty_question_politely(client: Any) -> None:
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="Please type a question"):
        client.predict("  ", api_name="/ask")


def test_browser_shows_the_answer_and_highlighted_abstracts(server: Server) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed (apt-get install -y chromium)")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            # networkidle never comes on a Gradio page; wait for the input to be enabled instead.
            page.goto(server.url, wait_until="domcontentloaded")
            page.wait_for_function(
                "() => { const t = document.querySelector('textarea'); return t && !t.disabled; }",
                timeout=180_000,
            )
            box = page.locator("textarea").first
            box.fill(QUESTION)
            box.press("Enter")
            page.wait_for_selector(".pb-citation", timeout=60_000)
            assert "ASCPO" in page.locator(".pb-citation").first.inner_text()
            assert page.locator(".pb-citation mark").count() >= 1
            assert "[1]" in page.locator("[role='log'], .bubble-wrap").first.inner_text()
        finally:
            browser.close()
