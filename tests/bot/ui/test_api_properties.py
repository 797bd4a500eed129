"""Property test of the web API: whatever text a script posts to /ask (lone surrogates as JSON
"\\ud800" escapes, controls, escape codes, numbers, nothing), the real app over the seeded store
answers or says what is wrong; never a failure without a message ({"error": null} before the fix).
Fixed seed, small budget; `python -m tests.fuzz` asks 1,000 questions of the CLI.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.app import Paperbot
from bot.ui.serve import library_of

pytestmark = pytest.mark.slow

BUDGET = settings(derandomize=True, max_examples=25, deadline=None, database=None)
ODD = ["\udce9", "\ud800", "\udfff", "\x00", "\x1b[2J", "\x07", "\ufeff", "\u2028", "[99999999999999]", "it", "?"]
WORDS = st.sampled_from(["How do", "robots learn", "reinforcement learning", "which papers use GRPO", "caf"])
QUESTIONS = st.lists(st.one_of(WORDS, st.sampled_from(ODD), st.characters(codec=None)), max_size=8).map(" ".join)
PAYLOADS = st.one_of(QUESTIONS, st.none(), st.integers(), st.just(["a list"]), st.just({"q": 1}))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def api(seeded_bot: Paperbot) -> Iterator[httpx.Client]:
    from bot.ui.build import build

    demo = build(seeded_bot.ask, None, seeded_bot.paper_count, library_of(seeded_bot), ask_stream=seeded_bot.ask_stream)
    port = _free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            yield client
    finally:
        demo.close(verbose=False)


def _ask(client: httpx.Client, payload: Any) -> tuple[str, Any]:
    """(event, data) of the finished /ask call; the body is sent with JSON escapes, as a script would."""
    body = json.dumps({"data": [payload]})  # ensure_ascii: a lone surrogate goes as "\ud800"
    posted = client.post("/gradio_api/call/ask", content=body, headers={"content-type": "application/json"})
    assert posted.status_code == 200, posted.text
    with client.stream("GET", f"/gradio_api/call/ask/{posted.json()['event_id']}") as stream:
        lines = list(stream.iter_lines())
    event = next(line.removeprefix("event: ") for line in lines if line.startswith("event: "))
    data = json.loads(lines[lines.index(f"event: {event}") + 1].removeprefix("data: "))
    return event, data


@BUDGET
@given(payload=PAYLOADS)
def test_any_posted_question_is_answered_or_refused_with_a_message(api: httpx.Client, payload: Any) -> None:
    event, data = _ask(api, payload)
    assert event in ("complete", "error"), (event, data)
    if event == "complete":
        assert isinstance(data, list) and isinstance(data[0], str) and data[0].strip()
        assert "\ud800" not in data[0] and "\x1b" not in data[0]
    else:
        assert data, f"{payload!r} failed without saying why"


def test_a_latin1_byte_in_a_question_is_answered(api: httpx.Client) -> None:
    event, data = _ask(api, "caf\udce9 reinforcement learning for robots")
    assert event == "complete" and "[1]" in data[0]
