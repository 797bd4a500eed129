"""The real chat server: `python -m bot serve` on an empty store, asked through gradio_client.

The store starts empty, so the first question waits for the server's own seed load (~20-40 s
here). The server comes from conftest.py and is shared with the browser test (test_browser.py).
"""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path
from typing import Any

import pytest

from bot.render.messages import EMPTY_QUESTION_REPLY

pytestmark = pytest.mark.slow

QUESTION = "How can reinforcement learning enforce safety constraints at every state?"


@pytest.fixture(scope="module")
def client(server: Any) -> Any:
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


def test_server_binds_loopback_and_prints_its_url(server: Any) -> None:
    assert f"chat UI running at http://127.0.0.1:{server.port}/" in server.log.read_text()
    assert "paperbot: 0 papers ready in" in server.log.read_text()  # an empty store: the seeds come later
    if not os.path.exists("/proc/net/tcp"):
        pytest.skip("no /proc/net/tcp to read listening sockets from")
    assert _listening_addresses(server.port) == {"127.0.0.1"}


def test_ask_endpoint_answers_from_the_seeds_it_loaded_itself(client: Any) -> None:
    markdown = client.predict(QUESTION, api_name="/ask")
    assert "[1]" in markdown
    assert "ASCPO" in markdown
    assert re.search(r"^\[1\] \*\*ASCPO\*\*$", markdown, re.MULTILINE)  # the reference list


def test_chat_endpoint_returns_the_conversation_panel_and_status(client: Any) -> None:
    history, box, panel, status, cited = client.predict(QUESTION, [], api_name="/chat")
    assert [m["role"] for m in history] == ["user", "assistant"]
    assert _text(history[0]) == QUESTION
    assert "[1]" in _text(history[1]) and "ASCPO" in _text(history[1])
    # The streamed text was replaced by the checked answer, which ends with its reference list.
    assert re.search(r"^\[1\] \*\*ASCPO\*\*$", _text(history[1]), re.MULTILINE)
    assert box == ""  # the input is cleared for the next question
    assert "[1] ASCPO" in panel and "<mark>" in panel
    assert re.match(r"\*\*\d+\*\* papers in the store\.", status)
    # The cited papers are offered as tick boxes for a reading list, none ticked yet.
    assert cited["value"] == []
    assert cited["choices"][0][0] == "[1] ASCPO"

    # A follow-up keeps the conversation; an empty one gets the polite reply.
    history, _, _, _, _ = client.predict("   ", history, api_name="/chat")
    assert len(history) == 3
    assert _text(history[-1]) == EMPTY_QUESTION_REPLY


def test_ask_endpoint_rejects_an_empty_question_politely(client: Any, server: Any) -> None:
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="Please type a question"):
        client.predict("  ", api_name="/ask")
    with pytest.raises(AppError, match="no earlier answer with citations"):
        client.predict("compare [1] and [3]", api_name="/ask")  # /ask has no conversation to refer to
    # Declined questions are the caller's to fix: a line in the server's log, not a traceback.
    log = server.log.read_text()
    assert "/ask: " in log and "gradio.exceptions.Error" not in log
