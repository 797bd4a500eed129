"""The bounded queue: the real app over a core that answers only when told, on a free loopback port.

With one answer slot and room for one waiting question, a third question is refused at once with
HTTP 503 (the page then says "This application is currently busy. Please try again."), and the
two accepted ones are still answered. The page's own notice is checked in Chromium.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.settings import UISettings
from bot.types import Answer
from bot.ui import views

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
BUSY = "This application is currently busy. Please try again."  # Gradio's page, on an HTTP 503 from the queue


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class HeldCore:
    """Answers each question once `release` is set; `started` is set when the first one arrives."""

    def __init__(self) -> None:
        self.started, self.release = threading.Event(), threading.Event()

    def ask(self, question: str, **options: Any) -> Answer:
        self.started.set()
        assert self.release.wait(30), "the test never released the answer"
        return Answer(question, f"answered: {question}", False, (), ())


@pytest.fixture
def held() -> Iterator[tuple[str, HeldCore]]:
    from bot.ui.build import build

    core = HeldCore()

    def unused(*args: Any) -> Any:
        raise AssertionError("only questions are asked here")

    library = views.Library(unused, unused, lambda: [], unused, unused, unused, unused)
    limits = UISettings(answer_slots=1, queue_size=1)  # type: ignore[call-arg]
    demo = build(core.ask, None, lambda: 1, library, ui=limits)
    port = _free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        yield f"http://127.0.0.1:{port}", core
    finally:
        core.release.set()
        demo.close(verbose=False)


def _result(client: httpx.Client, event_id: str) -> str:
    with client.stream("GET", f"/gradio_api/call/ask/{event_id}", timeout=30) as stream:
        lines = list(stream.iter_lines())
    assert "event: complete" in lines, lines
    return lines[lines.index("event: complete") + 1]


def test_beyond_the_queue_a_question_is_refused_at_once_as_busy(held: tuple[str, HeldCore]) -> None:
    url, core = held
    with httpx.Client(base_url=url, timeout=10) as client:
        first = client.post("/gradio_api/call/ask", json={"data": ["one"]})
        assert first.status_code == 200
        assert core.started.wait(10)  # the one slot is taken
        second = client.post("/gradio_api/call/ask", json={"data": ["two"]})
        assert second.status_code == 200  # waits in the queue's one place
        third = client.post("/gradio_api/call/ask", json={"data": ["three"]})
        assert third.status_code == 503
        assert "Queue is full" in third.text
        core.release.set()
        assert "answered: one" in _result(client, first.json()["event_id"])
        assert "answered: two" in _result(client, second.json()["event_id"])
        # With the queue drained, questions are taken again.
        again = client.post("/gradio_api/call/ask", json={"data": ["four"]})
        assert again.status_code == 200 and "answered: four" in _result(client, again.json()["event_id"])


def test_the_queue_numbers_come_from_the_ui_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.settings import load_settings
    from bot.ui.build import build

    monkeypatch.setenv("PAPERBOT_UI__QUEUE_SIZE", "7")
    monkeypatch.setenv("PAPERBOT_UI__ANSWER_SLOTS", "2")
    monkeypatch.setenv("PAPERBOT_UI__TASK_SLOTS", "3")
    ui = load_settings().ui
    library = views.Library(*([lambda *a: None] * 7))  # type: ignore[arg-type]
    demo = build(lambda q, **o: None, None, lambda: 1, library, ui=ui)  # type: ignore[arg-type, return-value]
    assert demo._queue.max_size == 7
    limits = {fn.api_name: fn.concurrency_limit for fn in demo.fns.values()}
    assert limits["chat"] == limits["ask"] == 2
    assert demo._queue.default_concurrency_limit == 3


@pytest.mark.slow
def test_the_page_says_busy_when_its_question_finds_the_queue_full(held: tuple[str, HeldCore]) -> None:
    """In Chromium: with the slot taken and the one waiting place filled, a question typed in the page
    is answered by Gradio's own notice, not left spinning."""
    if not CHROMIUM.exists():
        pytest.skip(f"Debian chromium is not installed at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    url, core = held
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.set_default_timeout(30_000)
            page.goto(url, wait_until="domcontentloaded")
            # Ready when the page load has run (it enables the box with its own placeholder): before that, the
            # two questions below would fill the queue ahead of it and leave the box disabled.
            page.wait_for_function(
                "() => { const t = document.querySelector('textarea');"
                " return t && !t.disabled && t.placeholder.startsWith('Ask'); }"
            )
            with httpx.Client(base_url=url, timeout=10) as client:
                assert client.post("/gradio_api/call/ask", json={"data": ["one"]}).status_code == 200
                assert core.started.wait(10)
                assert client.post("/gradio_api/call/ask", json={"data": ["two"]}).status_code == 200
                box = page.locator("textarea").first
                box.fill("three")
                box.press("Enter")
                page.get_by_text(BUSY).first.wait_for()
        finally:
            browser.close()
